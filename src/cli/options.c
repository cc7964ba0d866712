/* options.c: option matching and the clock for the subcommands. */
#include "cli/options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/suggest.h"
#include "core/units.h"
#include "io/atomic_file.h"

/* Options that add to a list rather than set one value; every other option
 * given twice is an error, whatever the command (the second would silently
 * replace the first). */
static const char *const repeatable[] = {"--param", "--noise", "--noise-rank", "--algo"};

static int is_option(const char *arg, const char *name, size_t n) {
  return strncmp(arg, name, n) == 0 && (arg[n] == 0 || arg[n] == '=');
}

/* The value of an earlier occurrence of option name in argv[2..at), or
 * NULL (also for the repeatable ones). */
static const char *earlier(char **argv, int at, const char *name, size_t n) {
  for (size_t k = 0; k < sizeof repeatable / sizeof repeatable[0]; k++)
    if (strcmp(name, repeatable[k]) == 0) return NULL;
  for (int j = 2; j < at; j++)
    if (is_option(argv[j], name, n)) return argv[j][n] == '=' ? argv[j] + n + 1 : argv[j + 1];
  return NULL;
}

int fs_option(int argc, char **argv, int *i, const char *name, const char **value, fs_error *err) {
  const char *arg = argv[*i];
  size_t n = strlen(name);
  if (!is_option(arg, name, n)) return 0;
  const char *before = earlier(argv, *i, name, n);
  if (before)
    return fs_error_set(err, "%s given twice (%s, then %s): give it once", name, before,
                        arg[n] == '='   ? arg + n + 1
                        : *i + 1 < argc ? argv[*i + 1]
                                        : "no value");
  if (arg[n] == '=') {
    *value = arg + n + 1;
    return 1;
  }
  if (*i + 1 >= argc) return fs_error_set(err, "%s needs a value", name);
  *value = argv[++*i];
  return 1;
}

int fs_option_count(const char *name, const char *value, int64_t min, int64_t max, int64_t *out,
                    fs_error *err) {
  if (fs_parse_count(value, strlen(value), min, max, out) != 0)
    return fs_error_set(err, "%s %s: expected a whole number from %lld to %lld", name, value,
                        (long long)min, (long long)max);
  return 0;
}

double fs_seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int fs_option_param(fs_parameters *params, const char *text, fs_error *err) {
  const char *equals = strchr(text, '=');
  if (!equals || equals == text || !equals[1])
    return fs_error_set(err, "--param %s: expected KEY=VALUE", text);
  size_t key_length = (size_t)(equals - text);
  for (int i = 0; i < params->count; i++) /* a second value would silently win */
    if (strlen(params->items[i].key) == key_length &&
        !memcmp(params->items[i].key, text, key_length))
      return fs_error_set(err, "--param %s: %s is already set (to %s): give each key once", text,
                          params->items[i].key, params->items[i].value);
  fs_parameter *items = realloc(params->items, (size_t)(params->count + 1) * sizeof *items);
  if (!items) return fs_error_set(err, "out of memory");
  params->items = items;
  char *copy = strdup(text);
  if (!copy) return fs_error_set(err, "out of memory");
  copy[key_length] = 0;
  items[params->count++] = (fs_parameter){.key = copy, .value = copy + key_length + 1, .used = 0};
  return 0;
}

void fs_option_params_free(fs_parameters *params) {
  for (int i = 0; i < params->count; i++) free((char *)params->items[i].key);
  free(params->items);
  params->items = NULL, params->count = 0;
}

int fs_option_param_pair(fs_parameters *params, const char *key, const char *value, fs_error *err) {
  char text[1200];
  snprintf(text, sizeof text, "%s=%s", key, value);
  return fs_option_param(params, text, err);
}

int fs_exit_status_for(const fs_error *err, int otherwise) {
  return fs_error_is_too_large(err) || fs_error_is_out_of_memory(err) ? FS_EXIT_USAGE : otherwise;
}

/* The options usage shows: "--name" or "-x" after a blank, '[' or '(',
 * each once, at most max, copied into names[k] (each up to 31 bytes). */
static int usage_options(const char *usage, char names[][32], int max) {
  int count = 0;
  for (const char *at = usage; *at && count < max; at++) {
    if (at[0] != '-' || (at > usage && !strchr(" [(`|\n", at[-1]))) continue;
    size_t n = at[1] == '-' ? 2 : 1;
    if (!((at[n] >= 'a' && at[n] <= 'z') || (at[n] >= 'A' && at[n] <= 'Z'))) continue;
    while ((at[n] >= 'a' && at[n] <= 'z') || (at[n] >= 'A' && at[n] <= 'Z') ||
           (at[n] >= '0' && at[n] <= '9') || (at[n] == '-' && n > 1))
      n++;
    if (n >= 32) continue;
    char name[32];
    memcpy(name, at, n), name[n] = 0;
    int seen = 0;
    for (int k = 0; k < count && !seen; k++) seen = strcmp(names[k], name) == 0;
    if (!seen) memcpy(names[count++], name, n + 1);
    at += n - 1;
  }
  return count;
}

int fs_option_unknown(fs_error *err, const char *command, const char *arg, const char *usage) {
  enum { MAX_OPTIONS = 96 };
  char names[MAX_OPTIONS][32], typed[64], mean[200];
  const char *list[MAX_OPTIONS];
  int count = usage ? usage_options(usage, names, MAX_OPTIONS) : 0;
  for (int k = 0; k < count; k++) list[k] = names[k];
  snprintf(typed, sizeof typed, "%.*s", (int)strcspn(arg, "="), arg);
  fs_suggest_text(mean, sizeof mean, typed, list, count);
  return fs_error_set(err, "unknown option %s (see fennelsim %s --help)%s%s", arg, command,
                      mean[0] ? "; " : "", mean);
}

int fs_wants_help(int argc, char **argv, const char *usage) {
  for (int i = 2; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(usage, stdout);
      return 1;
    }
  return 0;
}

/* The files argument arg may name: itself, and each part after a '=' up to
 * a ',' (--param table=FILE, --noise host=empirical:file=FILE,mode=add).
 * 1 (with the name in clash) when one is the output o, other than o's own
 * argument (where it starts in argv is o->path). */
static int names_output(const char *arg, const fs_named_path *o, char clash[4096]) {
  if (arg != o->path && fs_same_regular_file(o->path, arg)) {
    snprintf(clash, 4096, "%s", arg);
    return 1;
  }
  for (const char *p = strchr(arg, '='); p; p = strchr(p + 1, '=')) {
    const char *part = p + 1;
    size_t n = strcspn(part, ",");
    if (n == 0 || n >= 4096 || part == o->path) continue;
    memcpy(clash, part, n);
    clash[n] = 0;
    if (fs_same_regular_file(o->path, clash)) return 1;
  }
  return 0;
}

int fs_option_check_outputs(int argc, char **argv, const fs_named_path *outputs, int count,
                            fs_error *err) {
  for (int k = 0; k < count; k++) {
    const fs_named_path *o = &outputs[k];
    struct stat status;
    if (!o->path || strcmp(o->path, "-") == 0) continue;
    int special = stat(o->path, &status) == 0 && !S_ISREG(status.st_mode); /* /dev/null */
    for (int j = 0; j < k && !special; j++)
      if (outputs[j].path && strcmp(outputs[j].path, o->path) == 0)
        return fs_error_set(err, "%s %s: also the output of %s: each output needs its own file",
                            o->name, o->path, outputs[j].name);
    char clash[4096];
    for (int i = 2; i < argc; i++)
      if (names_output(argv[i], o, clash))
        return fs_error_set(err,
                            "%s %s: the same file as the input %s: writing it would "
                            "replace that file (choose another output path)",
                            o->name, o->path, clash);
  }
  return 0;
}

/* ---- lists of sizes or counts and their ranges (--sizes, --ranks) ------------ */

typedef struct number_kind {
  int sizes;        /* sizes with units (0 allowed alone); else counts 1..max */
  int64_t max;      /* counts: the largest */
  int capacity;     /* items at most */
  const char *what; /* "sizes", "rank counts" */
} number_kind;

static int parse_number(const number_kind *k, const char *text, size_t length, int64_t *out) {
  return k->sizes ? fs_parse_size(text, length, out) : fs_parse_count(text, length, 1, k->max, out);
}

static int item_error(const number_kind *k, const char *name, const char *value, const char *item,
                      size_t length, int range, fs_error *err) {
  if (k->sizes)
    return fs_error_set(err,
                        range ? "%s %s: '%.*s': expected a range LOW..HIGH*FACTOR such as "
                                "8B..1MiB*4 (1 <= LOW <= HIGH, FACTOR a whole number >= 2)"
                              : "%s %s: '%.*s': expected a size such as 8B, 4KiB or 1MB",
                        name, value, (int)length, item);
  if (range)
    return fs_error_set(err,
                        "%s %s: '%.*s': expected LOW..HIGH*FACTOR (64..4096*2) or LOW..HIGH+STEP "
                        "(2..64+2), 1 <= LOW <= HIGH <= %lld",
                        name, value, (int)length, item, (long long)k->max);
  return fs_error_set(err, "%s %s: '%.*s': expected a rank count from 1 to %lld", name, value,
                      (int)length, item, (long long)k->max);
}

/* One item: a number, "A..B*F" (A, A*F, ... up to B) or, for counts,
 * "A..B+D" (A, A+D, ... up to B). Appends to list[*n]. */
static int list_item(const number_kind *k, const char *name, const char *value, const char *item,
                     size_t length, int64_t *list, int *n, fs_error *err) {
  const char *dots = NULL, *end = item + length, *op = NULL;
  for (const char *c = item; c + 1 < end && !dots; c++)
    if (c[0] == '.' && c[1] == '.') dots = c;
  int64_t low, high, step = 1;
  int multiply = 0;
  if (!dots) {
    if (parse_number(k, item, length, &low))
      return item_error(k, name, value, item, length, 0, err);
    high = low;
  } else {
    for (op = dots + 2; op < end && *op != '*' && (k->sizes || *op != '+');) op++;
    multiply = op < end && *op == '*';
    if (op == end || parse_number(k, item, (size_t)(dots - item), &low) ||
        parse_number(k, dots + 2, (size_t)(op - dots - 2), &high) ||
        fs_parse_count(op + 1, (size_t)(end - op - 1), multiply ? 2 : 1,
                       k->sizes ? 1 << 20 : k->max, &step) ||
        low < 1 || high < low)
      return item_error(k, name, value, item, length, 1, err);
  }
  for (int64_t v = low; v <= high;) {
    if (*n == k->capacity)
      return fs_error_set(err, "%s %s: more than %d %s", name, value, k->capacity, k->what);
    list[(*n)++] = v;
    if (!dots) break;
    v = !multiply ? v + step : v <= high / step ? v * step : high + 1; /* no overflow */
  }
  return 0;
}

/* The comma-separated items of value into a malloc'd *out. */
static int number_list(const number_kind *k, const char *name, const char *value, int64_t **out,
                       int *count, fs_error *err) {
  int64_t *list = malloc((size_t)k->capacity * sizeof *list);
  if (!list) return fs_error_set(err, "out of memory");
  int n = 0;
  for (const char *at = value;; at++) {
    size_t length = strcspn(at, ",");
    if (length == 0) {
      free(list);
      return fs_error_set(err, "%s %s: an empty item: expected %s", name, value,
                          k->sizes ? "sizes such as 8B,1KiB,1MiB or a range 8B..1MiB*4"
                                   : "counts such as 64,128 or a range 64..4096*2");
    }
    if (list_item(k, name, value, at, length, list, &n, err)) {
      free(list);
      return -1;
    }
    at += length;
    if (!*at) break;
  }
  *out = list, *count = n;
  return 0;
}

int fs_option_sizes(const char *name, const char *value, int64_t **out, int *count, fs_error *err) {
  const number_kind sizes = {1, 0, FS_OPTION_SIZES_MAX, "sizes"};
  return number_list(&sizes, name, value, out, count, err);
}

int fs_option_counts(const char *name, const char *value, int64_t max, int capacity, int32_t **out,
                     int *count, fs_error *err) {
  const number_kind counts = {0, max, capacity, "rank counts"};
  int64_t *list;
  if (number_list(&counts, name, value, &list, count, err)) return -1;
  int32_t *narrow = malloc((size_t)*count * sizeof *narrow + 1);
  if (!narrow) return free(list), fs_error_set(err, "out of memory");
  for (int i = 0; i < *count; i++) narrow[i] = (int32_t)list[i]; /* max fits int32 */
  free(list);
  *out = narrow;
  return 0;
}
