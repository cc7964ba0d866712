/* suggest.h: "did you mean" for names the user mistyped (commands,
 * options, models, generators, parameters, noise kinds): the names of a
 * list closest to what was typed by edit distance.
 *
 * The distance is the optimal-string-alignment form of Damerau-Levenshtein:
 * an insertion, a deletion, a substitution or a swap of two adjacent
 * characters each cost 1 (so "rnu" is 1 from "run"); case counts.
 * A name is suggested when its distance is at most the threshold of the
 * typed text's length (FS_SUGGEST_THRESHOLD) and below the name's own
 * length (so "x" never suggests "rr") and not 0 (the name itself is no
 * suggestion); of those, the ones at the smallest
 * distance, in list order, at most FS_SUGGEST_MAX. */
#ifndef FS_SUGGEST_H
#define FS_SUGGEST_H

#include <stddef.h>

/* Names longer than this are never suggested (nor typed text compared). */
#define FS_SUGGEST_MAX_LENGTH 128
#define FS_SUGGEST_MAX 3
/* 1 for up to 4 characters typed, 2 up to 8, else 3. */
#define FS_SUGGEST_THRESHOLD(length) ((length) <= 4 ? 1 : (length) <= 8 ? 2 : 3)

/* The distance between a and b; FS_SUGGEST_MAX_LENGTH + 1 when either is
 * longer than FS_SUGGEST_MAX_LENGTH. */
int fs_edit_distance(const char *a, const char *b);
/* Fills best[0..return) with the suggested names of names[0..count). */
int fs_suggest(const char *typed, const char *const *names, int count,
               const char *best[FS_SUGGEST_MAX]);
/* "did you mean X?", "did you mean X or Y?", "did you mean X, Y or Z?"
 * into out, or "" when nothing is close; returns out. */
char *fs_suggest_text(char *out, size_t size, const char *typed, const char *const *names,
                      int count);
/* The same for a list in one string, names separated by commas, '|' or
 * blanks ("hockney, pipelined, loggops"). */
char *fs_suggest_text_list(char *out, size_t size, const char *typed, const char *list);

#endif
