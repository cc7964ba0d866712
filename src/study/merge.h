/* merge.h: samples CSVs read back and combined: the shards of one study
 * (`fennelsim run ... --shard i/n --samples PART.csv`) merged into the
 * seed-ordered results of the whole study (`fennelsim merge`).
 *
 * A samples CSV has the header seed,makespan_ns,finish_ns_0,...,finish_ns_R-1
 * and one row per seed; times are decimal nanoseconds with at most three
 * decimals (whole picoseconds, as fs_format_ns writes them). The reader is
 * strict: any other text is an error "FILE:LINE:COLUMN: what was expected".
 *
 * Lines grow with the rank count (about 17 bytes per rank in the header, at
 * most 24 in a row), so they are not held to the readers' 1 MiB: a header
 * may be as long as fennelsim writes for 2^31-1 ranks (FS_MERGE_LINE_MAX),
 * checked column by column as it arrives (a file of another shape fails
 * within its first MiB), and a row as long as one of the header's ranks
 * can be (fs_study_row_size). */
#ifndef FS_MERGE_H
#define FS_MERGE_H

#include <stdint.h>

#include "core/error.h"
#include "io/atomic_file.h"
#include "io/text_input.h"
#include "study/study.h"

/* `--shard INDEX/COUNT`: 0 <= INDEX < COUNT. 0, or -1 with err set. The
 * shard runs the seed indices INDEX, INDEX+COUNT, ... of the study. */
int fs_study_parse_shard(const char *text, int64_t *index, int64_t *count, fs_error *err);

typedef struct fs_merge fs_merge; /* the rows read so far, from any files */

/* The longest samples line of a study of INT32_MAX ranks: fs_study_row_size. */
#define FS_MERGE_LINE_MAX (24 * ((size_t)INT32_MAX + 2) + 8)

/* Seeds absent between the smallest and the largest seed read. */
typedef struct fs_merge_gaps {
  uint64_t missing;       /* how many */
  uint64_t first_missing; /* the smallest of them (when missing > 0) */
  uint64_t first_seed, last_seed;
} fs_merge_gaps;

/* NULL when out of memory. */
fs_merge *fs_merge_new(void);
/* Reads one samples CSV to its end (in is not closed). Every file must have
 * the same number of ranks. 0, or -1 with err set. */
int fs_merge_read(fs_merge *m, fs_text_input *in, fs_error *err);
/* The same from a path ("-" is stdin; .gz is read transparently). */
int fs_merge_read_file(fs_merge *m, const char *path, fs_error *err);
/* The rows read, in seed order, copied into out (free it with
 * fs_study_results_free), their rank count into *ranks and the seeds missing
 * into *gaps. -1 with err set when a seed was read twice ("B.csv:4:1: seed 9
 * already read at A.csv:3") or no file was read; m is then unchanged. */
int fs_merge_results(fs_merge *m, fs_study_results *out, int32_t *ranks, fs_merge_gaps *gaps,
                     fs_error *err);
void fs_merge_free(fs_merge *m);

/* Writes results as a samples CSV (the format above, rows in the order of
 * out) and commits out: 0, or -1 with err set (out is freed either way). */
int fs_merge_write_samples(const fs_study_results *results, int32_t ranks, fs_output *out,
                           fs_error *err);

#endif
