/* replay_algorithms.c: --algo, which generator replaces each collective of
 * a replay (replay.h), and the text that says which ones ran. */
#include "trace/replay_lowering.h"

#include <stdio.h>
#include <string.h>

static const char *const collective_names[FS_ALGO_COUNT] = {"barrier",   "bcast",   "reduce",
                                                            "allreduce", "gather",  "scatter",
                                                            "allgather", "alltoall"};
/* Small-message choices of MPICH's defaults (ch4 "mpir" selection). */
static const char *const default_generators[FS_ALGO_COUNT] =
    {"barrier-dissemination", "bcast-binomial",   "reduce-binomial", "allreduce-rd",
     "gather-binomial",       "scatter-binomial", "allgather-rd",    "alltoall-pairwise"};

const char *fs_replay_algorithm_help(void) {
  return "barrier=dissemination bcast=binomial reduce=binomial allreduce=rd gather=binomial "
         "scatter=binomial allgather=rd alltoall=pairwise";
}

/* "all=NAME": every collective's generator COLLECTIVE-NAME (all=mpich,
 * all=ompi: the libraries' selectors); each must exist. */
static int parse_all(fs_lower_algorithm *table, const char *name, fs_error *err) {
  if (strchr(name, ':'))
    return fs_error_set(err, "--algo all=%s: all= takes no option (all=mpich, all=ompi)", name);
  for (int which = 0; which < FS_ALGO_COUNT; which++) {
    char full[300];
    snprintf(full, sizeof full, "%s-%s", collective_names[which], name);
    const fs_generator *g = fs_generator_find(full);
    if (!g)
      return fs_error_set(err, "--algo all=%s: no generator %s (all= takes mpich or ompi)", name,
                          full);
    table[which] = (fs_lower_algorithm){.generator = g};
  }
  return 0;
}

/* One "collective=name[:option]" of --algo. */
static int parse_algorithm(fs_lower_algorithm *table, const char *text, size_t length,
                           fs_error *err) {
  char item[256];
  if (length >= sizeof item) return fs_error_set(err, "--algo: '%.40s...' is too long", text);
  memcpy(item, text, length);
  item[length] = 0;
  char *name = strchr(item, '=');
  if (!name) return fs_error_set(err, "--algo %s: expected COLLECTIVE=ALGORITHM[:OPTION]", item);
  *name++ = 0;
  if (strcmp(item, "all") == 0) return parse_all(table, name, err);
  int which = 0;
  while (which < FS_ALGO_COUNT && strcmp(collective_names[which], item) != 0) which++;
  if (which == FS_ALGO_COUNT)
    return fs_error_set(err,
                        "--algo: unknown collective '%s' (expected one of barrier, bcast, "
                        "reduce, allreduce, gather, scatter, allgather, alltoall)",
                        item);
  char *option = strchr(name, ':');
  if (option) *option++ = 0;
  char full[300];
  snprintf(full, sizeof full, "%s-%s", item, name);
  const fs_generator *g = fs_generator_find(full);
  if (!g && strncmp(name, item, strlen(item)) == 0 && name[strlen(item)] == '-')
    g = fs_generator_find(name);
  if (!g)
    return fs_error_set(err, "--algo %s=%s: no generator %s (see fennelsim gen --list)", item, name,
                        full);
  if (strcmp(fs_collective_name(g->collective), item) != 0) /* reduce=scatter-nccl-ring */
    return fs_error_set(err, "--algo %s=%s: %s computes %s, not %s", item, name, g->name,
                        fs_collective_name(g->collective), item);
  fs_lower_algorithm *a = &table[which];
  *a = (fs_lower_algorithm){.generator = g};
  if (!option) return 0;
  int64_t number;
  if (g->options & FS_GEN_SCHEDULE) {
    if (strlen(option) >= sizeof a->schedule)
      return fs_error_set(err, "--algo %s=%s: schedule too long", item, name);
    strcpy(a->schedule, option);
  } else if (g->options & FS_GEN_WAYS) {
    if (fs_parse_count(option, strlen(option), 2, 1 << 20, &number))
      return fs_error_set(err, "--algo %s=%s:%s: expected a number of ways (2 or more)", item, name,
                          option);
    a->ways = (int32_t)number;
  } else if (g->options & FS_GEN_SEGMENT) {
    if (fs_parse_size(option, strlen(option), &number) || number < 1)
      return fs_error_set(err, "--algo %s=%s:%s: expected a segment size (8KiB)", item, name,
                          option);
    a->segment = number;
  } else {
    return fs_error_set(err, "--algo %s=%s:%s: %s takes no option", item, name, option, g->name);
  }
  return 0;
}

int fs_lower_parse_algorithms(fs_lower_algorithm *table, const char *text, fs_error *err) {
  for (int i = 0; i < FS_ALGO_COUNT; i++)
    table[i] = (fs_lower_algorithm){.generator = fs_generator_find(default_generators[i])};
  /* items are split at the commas followed by "collective=": schedules
   * have commas of their own (allreduce=rm:a4,a2) */
  while (text && *text) {
    size_t length = strcspn(text, ",");
    while (text[length] == ',') {
      size_t next = strcspn(text + length + 1, ",");
      if (memchr(text + length + 1, '=', next)) break;
      length += 1 + next;
    }
    if (length && parse_algorithm(table, text, length, err)) return -1;
    text += length + (text[length] == ',');
  }
  return 0;
}

void fs_lower_describe_algorithms(const fs_lower_algorithm *table, char *text, size_t size) {
  char *at = text;
  size_t left = size;
  at[0] = 0;
  for (int i = 0; i < FS_ALGO_COUNT; i++) {
    if (!table[i].used) continue;
    const char *picked = table[i].picked;
    int n = snprintf(at, left, "%s%s=%s%s%s%s", at == text ? "" : " ", collective_names[i],
                     table[i].generator->name, picked[0] ? "(" : "", picked, picked[0] ? ")" : "");
    if (n < 0 || (size_t)n >= left) return;
    at += n, left -= (size_t)n;
  }
}

void fs_lower_note_pick(fs_lower_algorithm *a, const char *picked) {
  size_t used = strlen(a->picked), n = strlen(picked);
  for (const char *at = a->picked; (at = strstr(at, picked)) != NULL; at += n)
    if ((at == a->picked || at[-1] == ',') && (at[n] == ',' || at[n] == 0)) return;
  if (used + n + 2 > sizeof a->picked) return; /* the first ones are kept */
  snprintf(a->picked + used, sizeof a->picked - used, "%s%s", used ? "," : "", picked);
}
