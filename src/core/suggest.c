/* suggest.c: edit distance and the closest names (suggest.h). */
#include "core/suggest.h"

#include <stdio.h>
#include <string.h>

#define WIDTH (FS_SUGGEST_MAX_LENGTH + 1)

static int min3(int a, int b, int c) { return a < b ? (a < c ? a : c) : (b < c ? b : c); }

int fs_edit_distance(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b);
  if (n > FS_SUGGEST_MAX_LENGTH || m > FS_SUGGEST_MAX_LENGTH) return FS_SUGGEST_MAX_LENGTH + 1;
  /* three rows of the table: i-2, i-1, i (the swap looks two rows back) */
  int rows[3][WIDTH];
  for (size_t j = 0; j <= m; j++) rows[0][j] = (int)j;
  for (size_t i = 1; i <= n; i++) {
    int *d = rows[i % 3], *up = rows[(i - 1) % 3], *up2 = rows[(i + 1) % 3];
    d[0] = (int)i;
    for (size_t j = 1; j <= m; j++) {
      int cost = a[i - 1] != b[j - 1];
      d[j] = min3(up[j] + 1, d[j - 1] + 1, up[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && up2[j - 2] + 1 < d[j])
        d[j] = up2[j - 2] + 1;
    }
  }
  return rows[n % 3][m];
}

int fs_suggest(const char *typed, const char *const *names, int count,
               const char *best[FS_SUGGEST_MAX]) {
  int threshold = FS_SUGGEST_THRESHOLD((int)strlen(typed)), smallest = threshold + 1, found = 0;
  for (int i = 0; i < count; i++) {
    int d = fs_edit_distance(typed, names[i]);
    /* 0: the name itself, not a mistake in this list */
    if (d == 0 || d > threshold || d >= (int)strlen(names[i]) || d > smallest) continue;
    if (d < smallest) smallest = d, found = 0;
    if (found < FS_SUGGEST_MAX) best[found++] = names[i];
  }
  return found;
}

char *fs_suggest_text(char *out, size_t size, const char *typed, const char *const *names,
                      int count) {
  const char *best[FS_SUGGEST_MAX];
  int found = fs_suggest(typed, names, count, best);
  if (size) out[0] = 0;
  size_t at = 0;
  for (int i = 0; i < found && at < size; i++) {
    const char *before = i == 0 ? "did you mean " : i == found - 1 ? " or " : ", ";
    int n = snprintf(out + at, size - at, "%s%s%s", before, best[i], i == found - 1 ? "?" : "");
    if (n < 0) break;
    at += (size_t)n;
  }
  return out;
}

char *fs_suggest_text_list(char *out, size_t size, const char *typed, const char *list) {
  enum { MAX_NAMES = 64 };
  char copy[2048], *names[MAX_NAMES];
  snprintf(copy, sizeof copy, "%s", list);
  int count = 0;
  for (char *save = NULL, *name = strtok_r(copy, ", |\t\n", &save); name && count < MAX_NAMES;
       name = strtok_r(NULL, ", |\t\n", &save))
    names[count++] = name;
  return fs_suggest_text(out, size, typed, (const char *const *)names, count);
}
