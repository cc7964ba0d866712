/* platform.c: see platform.h. Validation lives here so that the XML reader
 * and the command line share every check and every message. */
#include "platform/platform.h"

#include <stdlib.h>
#include <string.h>

#include "core/index_map.h"

fs_platform *fs_platform_new(int64_t nodes, int64_t cores, fs_error *err) {
  if (nodes < 1 || nodes > INT32_MAX)
    return fs_error_set(err, "expected nodes in [1, %d] (got %lld)", INT32_MAX, (long long)nodes),
           NULL;
  if (cores < 1 || cores > INT32_MAX)
    return fs_error_set(err, "expected cores in [1, %d] (got %lld)", INT32_MAX, (long long)cores),
           NULL;
  fs_platform *p = calloc(1, sizeof *p);
  if (!p) return fs_error_set(err, "out of memory"), NULL;
  p->nodes = (int32_t)nodes;
  p->cores = (int32_t)cores;
  p->top_level = 1;
  return p;
}

void fs_platform_free(fs_platform *p) {
  if (!p) return;
  free(p->node);
  free(p);
}

static int name_ok(const char *name, size_t length) {
  if (length == 0 || length > FS_PLATFORM_NAME_MAX) return 0;
  for (size_t i = 0; i < length; i++) {
    char c = name[i];
    int letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    int other = (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (!letter && (i == 0 || !other)) return 0;
  }
  return 1;
}

static int check_name(const char *what, const char *name, size_t length, fs_error *err) {
  if (name_ok(name, length)) return 0;
  return fs_error_set(err,
                      "expected a %s name of 1 to %d of [A-Za-z][A-Za-z0-9_.-]* (got \"%.*s\")",
                      what, FS_PLATFORM_NAME_MAX, length > 64 ? 64 : (int)length, name);
}

static void copy_name(char *to, const char *name, size_t length) {
  memcpy(to, name, length);
  to[length] = '\0';
}

int fs_platform_add_level(fs_platform *p, const char *name, size_t length, int64_t fanout,
                          fs_error *err) {
  if (check_name("level", name, length, err)) return -1;
  if (p->channels > 0) return fs_error_set(err, "expected levels before channels");
  if (p->levels == FS_PLATFORM_MAX_LEVELS)
    return fs_error_set(err, "expected at most %d levels", FS_PLATFORM_MAX_LEVELS);
  for (int32_t i = 0; i < p->levels; i++)
    if (strlen(p->level[i].name) == length && memcmp(p->level[i].name, name, length) == 0)
      return fs_error_set(err, "expected a new level name (\"%s\" is level %d)", p->level[i].name,
                          i + 1);
  int64_t below = p->levels ? p->level[p->levels - 1].group_nodes : 1;
  if (fanout < 2 || fanout > p->nodes)
    return fs_error_set(err, "expected fanout in [2, %d] for level \"%.*s\" (got %lld)", p->nodes,
                        (int)length, name, (long long)fanout);
  int64_t group = below * fanout; /* <= nodes^2: no overflow */
  if (p->nodes % group != 0)
    return fs_error_set(err,
                        "expected level \"%.*s\" groups (%lld nodes each) to divide the %d nodes",
                        (int)length, name, (long long)group, p->nodes);
  fs_platform_level *l = &p->level[p->levels++];
  copy_name(l->name, name, length);
  l->fanout = (int32_t)fanout;
  l->group_nodes = (int32_t)group;
  p->top_level = group == p->nodes ? p->levels : p->levels + 1;
  return 0;
}

int fs_platform_channel_at(const fs_platform *p, int32_t level) {
  for (int32_t i = 0; i < p->channels; i++)
    if (p->channel[i].level == level) return i;
  return -1;
}

int fs_platform_add_channel(fs_platform *p, const char *name, size_t length, int64_t level,
                            fs_error *err) {
  if (check_name("channel", name, length, err)) return -1;
  if (p->channels == FS_PLATFORM_MAX_CHANNELS)
    return fs_error_set(err, "expected at most %d channels", FS_PLATFORM_MAX_CHANNELS);
  if (level < 0 || level > p->top_level)
    return fs_error_set(err, "expected channel \"%.*s\" level in [0, %d] (got %lld)", (int)length,
                        name, p->top_level, (long long)level);
  for (int32_t i = 0; i < p->channels; i++)
    if (strlen(p->channel[i].name) == length && memcmp(p->channel[i].name, name, length) == 0)
      return fs_error_set(err, "expected a new channel name (\"%s\" is at level %d)",
                          p->channel[i].name, p->channel[i].level);
  int other = fs_platform_channel_at(p, (int32_t)level);
  if (other >= 0)
    return fs_error_set(err, "expected one channel per level (\"%s\" is at level %lld)",
                        p->channel[other].name, (long long)level);
  fs_platform_channel *c = &p->channel[p->channels++];
  copy_name(c->name, name, length);
  c->level = (int32_t)level;
  return 0;
}

int fs_platform_default_channels(fs_platform *p, fs_error *err) {
  if (p->channels > 0) return 0;
  if (fs_platform_add_channel(p, "shm", 3, 0, err)) return -1;
  return fs_platform_add_channel(p, "net", 3, 1, err);
}

/* Checks ranks against M * Q (0 or -1 with err set). */
static int check_ranks(const fs_platform *p, int64_t ranks, fs_error *err) {
  int64_t capacity = (int64_t)p->nodes * p->cores;
  if (ranks < 1 || ranks > INT32_MAX)
    return fs_error_set(err, "expected ranks in [1, %d] (got %lld)", INT32_MAX, (long long)ranks);
  if (ranks > capacity)
    return fs_error_set(err, "expected at most %lld ranks on %d nodes x %d cores (got %lld)",
                        (long long)capacity, p->nodes, p->cores, (long long)ranks);
  return 0;
}

static void install(fs_platform *p, fs_mapping kind, int64_t ranks, int32_t *node,
                    int64_t used_nodes) {
  free(p->node);
  p->node = node;
  p->ranks = (int32_t)ranks;
  p->mapping = kind;
  p->used_nodes = (int32_t)used_nodes;
}

/* Computed mappings: no per-rank array (fs_platform_node_of). */
int fs_platform_map_sequential(fs_platform *p, int64_t ranks, fs_error *err) {
  if (check_ranks(p, ranks, err)) return -1;
  install(p, FS_MAPPING_SEQUENTIAL, ranks, NULL, (ranks + p->cores - 1) / p->cores);
  return 0;
}

int fs_platform_map_round_robin(fs_platform *p, int64_t ranks, fs_error *err) {
  if (check_ranks(p, ranks, err)) return -1;
  install(p, FS_MAPPING_ROUND_ROBIN, ranks, NULL, ranks < p->nodes ? ranks : p->nodes);
  return 0;
}

/* Every entry in [0, M); no node above Q ranks (counted per node the ranks
 * use, not per node of the platform). */
static int check_explicit(const fs_platform *p, int64_t ranks, const int32_t *nodes,
                          fs_error *err) {
  fs_index_map used;
  if (fs_index_map_init(&used, ranks, "the explicit mapping", err)) return -1;
  int32_t *count = fs_allocate(ranks, sizeof *count, "the explicit mapping", err);
  int status = count ? 0 : -1;
  for (int64_t i = 0; i < ranks && status == 0; i++) {
    if (nodes[i] < 0 || nodes[i] >= p->nodes) {
      status = fs_error_set(err, "expected rank %lld's node in [0, %d] (got %d)", (long long)i,
                            p->nodes - 1, nodes[i]);
      break;
    }
    int32_t known = used.count, k = fs_index_map_add(&used, nodes[i]);
    if (used.count > known) count[k] = 0; /* a node seen first */
    if (++count[k] > p->cores)
      status = fs_error_set(err, "expected at most %d ranks on node %d (rank %lld is one more)",
                            p->cores, nodes[i], (long long)i);
  }
  free(count);
  fs_index_map_free(&used);
  return status;
}

int fs_platform_map_explicit(fs_platform *p, int64_t ranks, const int32_t *nodes, fs_error *err) {
  if (check_ranks(p, ranks, err) || check_explicit(p, ranks, nodes, err)) return -1;
  int32_t *node = fs_allocate(ranks, sizeof *node, "the explicit mapping", err);
  if (!node) return -1;
  memcpy(node, nodes, (size_t)ranks * sizeof *node);
  int32_t highest = 0;
  for (int64_t i = 0; i < ranks; i++) highest = nodes[i] > highest ? nodes[i] : highest;
  install(p, FS_MAPPING_EXPLICIT, ranks, node, (int64_t)highest + 1);
  return 0;
}

int32_t fs_platform_level_between_nodes(const fs_platform *p, int32_t node_a, int32_t node_b) {
  if (node_a == node_b) return 0;
  for (int32_t i = 0; i < p->levels; i++)
    if (node_a / p->level[i].group_nodes == node_b / p->level[i].group_nodes) return i + 1;
  return p->top_level;
}

static int is(const char *text, size_t length, const char *word) {
  return strlen(word) == length && memcmp(text, word, length) == 0;
}

fs_mapping fs_mapping_from_name(const char *text, size_t length) {
  if (is(text, length, "seq") || is(text, length, "sequential")) return FS_MAPPING_SEQUENTIAL;
  if (is(text, length, "rr") || is(text, length, "round-robin")) return FS_MAPPING_ROUND_ROBIN;
  if (is(text, length, "explicit")) return FS_MAPPING_EXPLICIT;
  return FS_MAPPING_NONE;
}

const char *fs_mapping_name(fs_mapping mapping) {
  switch (mapping) {
    case FS_MAPPING_SEQUENTIAL: return "sequential";
    case FS_MAPPING_ROUND_ROBIN: return "round-robin";
    case FS_MAPPING_EXPLICIT: return "explicit";
    default: return "none";
  }
}

fs_platform *fs_platform_from_options(int64_t nodes, int64_t cores, const char *mapping,
                                      int64_t ranks, fs_error *err) {
  fs_mapping kind = mapping ? fs_mapping_from_name(mapping, strlen(mapping))
                            : FS_MAPPING_SEQUENTIAL;
  if (kind != FS_MAPPING_SEQUENTIAL && kind != FS_MAPPING_ROUND_ROBIN)
    return fs_error_set(err, "--mapping: expected seq or rr (got \"%.64s\")", mapping), NULL;
  fs_error why;
  fs_platform *p = fs_platform_new(nodes, cores, &why);
  int failed = !p || fs_platform_default_channels(p, &why) ||
               (kind == FS_MAPPING_SEQUENTIAL ? fs_platform_map_sequential(p, ranks, &why)
                                              : fs_platform_map_round_robin(p, ranks, &why));
  if (!failed) return p;
  fs_platform_free(p);
  fs_error_set(err, "--nodes %lld --cores %lld: %s", (long long)nodes, (long long)cores,
               why.message);
  return NULL;
}
