/* algorithm_spec.c: "NAME[:KEY=VALUE]..." algorithm specs (algorithm_spec.h)
 * and the variants a search over a collective tries. */
#include "generators/algorithm_spec.h"

#include <stdio.h>
#include <string.h>

#include "core/suggest.h"
#include "platform/nccl_tuning.h"

typedef struct spec_key {
  const char *name;
  unsigned option; /* the FS_GEN_* the generator must read */
} spec_key;

static const spec_key keys[] = {{"segment", FS_GEN_SEGMENT},     {"ways", FS_GEN_WAYS},
                                {"schedule", FS_GEN_SCHEDULE},   {"factors", FS_GEN_FACTORS},
                                {"root", FS_GEN_ROOT},           {"channels", FS_GEN_CHANNELS},
                                {"chunk", FS_GEN_CHUNK},         {"protocol", FS_GEN_PROTOCOL},
                                {"gpu", FS_GEN_NCCL_MACHINE},    {"nvls", FS_GEN_NCCL_MACHINE},
                                {"collnet", FS_GEN_NCCL_MACHINE}};
enum { KEY_COUNT = sizeof keys / sizeof keys[0] };

void fs_algorithm_spec_of(fs_algorithm_spec *spec, const fs_generator *generator) {
  *spec = (fs_algorithm_spec){.generator = generator};
  fs_algorithm_spec_format(spec);
}

/* "segment, root": the keys generator g reads, into out. */
static const char *keys_of(const fs_generator *g, char *out, size_t size) {
  size_t used = 0;
  out[0] = 0;
  for (int k = 0; k < KEY_COUNT; k++)
    if (g->options & keys[k].option) {
      int n = snprintf(out + used, size - used, "%s%s", used ? ", " : "", keys[k].name);
      if (n < 0 || (size_t)n >= size - used) break;
      used += (size_t)n;
    }
  return used ? out : "no keys";
}

static int unknown_name(const char *text, const char *name, fs_error *err) {
  int count;
  const fs_generator *list = fs_generator_list(&count);
  const char *names[256];
  int n = 0;
  for (int i = 0; i < count && n < 256; i++) names[n++] = list[i].name;
  char hint[160];
  fs_suggest_text(hint, sizeof hint, name, names, n);
  return fs_error_set(err, "%s: no algorithm '%s' (see fennelsim gen --list)%s%s", text, name,
                      hint[0] ? "; " : "", hint);
}

static int parse_factors(fs_algorithm_spec *spec, const char *text, const char *value,
                         fs_error *err) {
  const char *at = value;
  spec->factor_count = 0;
  while (*at) {
    size_t n = strcspn(at, ",");
    int64_t factor;
    if (spec->factor_count == 64 || fs_parse_count(at, n, 2, 1 << 30, &factor))
      return fs_error_set(err,
                          "%s: factors=%s: expected up to 64 whole numbers >= 2, comma separated",
                          text, value);
    spec->factors[spec->factor_count++] = (int32_t)factor;
    at += n;
    if (*at == ',' && !*++at)
      return fs_error_set(err, "%s: factors=%s: trailing comma", text, value);
  }
  if (!spec->factor_count) return fs_error_set(err, "%s: factors= needs at least one factor", text);
  return 0;
}

/* gpu=volta|ampere|hopper|blackwell, nvls=0|1, collnet=0|1 (the NCCL selectors'). */
static int parse_machine(fs_algorithm_spec *spec, const char *text, const char *key,
                         const char *value, fs_error *err) {
  if (key[0] == 'g') {
    int gpu = fs_nccl_gpu_find(value);
    if (gpu < 0)
      return fs_error_set(err, "%s: gpu=%s: expected volta, ampere, hopper or blackwell", text,
                          value);
    spec->nccl_gpu = gpu + 1;
    return 0;
  }
  if (strcmp(value, "0") != 0 && strcmp(value, "1") != 0)
    return fs_error_set(err, "%s: %s=%s: expected 0 or 1", text, key, value);
  *(key[0] == 'n' ? &spec->nccl_nvls : &spec->nccl_collnet) = value[0] == '1' ? FS_NCCL_SWITCH_ON
                                                                              : FS_NCCL_SWITCH_OFF;
  return 0;
}

/* One "key=value" of text. */
static int parse_item(fs_algorithm_spec *spec, const char *text, char *item, fs_error *err) {
  char *value = strchr(item, '=');
  if (!value) return fs_error_set(err, "%s: '%s': expected KEY=VALUE", text, item);
  *value++ = 0;
  int k = 0;
  while (k < KEY_COUNT && strcmp(keys[k].name, item) != 0) k++;
  char known[96];
  if (k == KEY_COUNT || !(spec->generator->options & keys[k].option))
    return fs_error_set(err, "%s: unknown key '%s' (%s takes %s)", text, item,
                        spec->generator->name, keys_of(spec->generator, known, sizeof known));
  if (keys[k].option == FS_GEN_NCCL_MACHINE) return parse_machine(spec, text, item, value, err);
  int64_t number;
  size_t n = strlen(value);
  switch (keys[k].option) {
    case FS_GEN_SEGMENT:
      if (fs_parse_size(value, n, &number) || number < 1)
        return fs_error_set(err, "%s: segment=%s: expected a size of 1B or more, such as 8KiB",
                            text, value);
      spec->segment = number;
      return 0;
    case FS_GEN_WAYS:
      if (fs_parse_count(value, n, 1, 1 << 20, &number))
        return fs_error_set(err, "%s: ways=%s: expected a whole number from 1 to 1048576", text,
                            value);
      spec->ways = (int32_t)number;
      return 0;
    case FS_GEN_SCHEDULE:
      if (n == 0 || n >= sizeof spec->schedule)
        return fs_error_set(err, "%s: schedule=: expected 1 to %d characters", text,
                            (int)sizeof spec->schedule - 1);
      memcpy(spec->schedule, value, n + 1);
      return 0;
    case FS_GEN_FACTORS: return parse_factors(spec, text, value, err);
    case FS_GEN_CHANNELS:
      if (fs_parse_count(value, n, 1, FS_NCCL_MAX_CHANNELS, &number))
        return fs_error_set(err, "%s: channels=%s: expected a whole number from 1 to %d", text,
                            value, FS_NCCL_MAX_CHANNELS);
      spec->channels = (int32_t)number;
      return 0;
    case FS_GEN_CHUNK:
      if (fs_parse_size(value, n, &number) || number < 1)
        return fs_error_set(err, "%s: chunk=%s: expected a size of 1B or more, such as 512KiB",
                            text, value);
      spec->chunk = number;
      return 0;
    case FS_GEN_PROTOCOL:
      if ((spec->protocol = fs_protocol_from_name(value, (int64_t)n)) <= FS_PROTOCOL_NONE)
        return fs_error_set(err, "%s: protocol=%s: expected LL, LL128 or Simple", text, value);
      return 0;
    default:
      if (fs_parse_count(value, n, 0, INT32_MAX, &number))
        return fs_error_set(err, "%s: root=%s: expected a rank (a whole number from 0)", text,
                            value);
      spec->root = (int32_t)number, spec->has_root = 1;
      return 0;
  }
}

int fs_algorithm_spec_parse(fs_algorithm_spec *spec, const char *text, fs_error *err) {
  char copy[512];
  size_t length = strlen(text);
  if (length == 0) return fs_error_set(err, "an algorithm: expected NAME[:KEY=VALUE]..., got ''");
  if (length >= sizeof copy)
    return fs_error_set(err, "%.40s...: an algorithm is at most %d characters", text,
                        (int)sizeof copy - 1);
  memcpy(copy, text, length + 1);
  char *item = strchr(copy, ':');
  if (item) *item++ = 0;
  const fs_generator *g = fs_generator_find(copy);
  if (!g) return unknown_name(text, copy, err);
  *spec = (fs_algorithm_spec){.generator = g};
  while (item) {
    char *next = strchr(item, ':');
    if (next) *next++ = 0;
    if (parse_item(spec, text, item, err)) return -1;
    item = next;
  }
  fs_algorithm_spec_format(spec);
  if (strlen(spec->text) + 1 >= sizeof spec->text)
    return fs_error_set(err, "%.40s...: an algorithm is at most %d characters", text,
                        (int)sizeof spec->text - 2);
  return 0;
}

void fs_algorithm_spec_apply(const fs_algorithm_spec *spec, fs_generator_options *o) {
  if (spec->segment) o->segment = spec->segment;
  if (spec->ways) o->ways = spec->ways;
  if (spec->schedule[0]) o->schedule = spec->schedule;
  if (spec->factor_count) {
    memcpy(o->factors, spec->factors, (size_t)spec->factor_count * sizeof *o->factors);
    o->factor_count = spec->factor_count;
  }
  if (spec->has_root) o->root = spec->root;
  if (spec->channels) o->channels = spec->channels;
  if (spec->chunk) o->chunk = spec->chunk;
  if (spec->protocol) o->protocol = spec->protocol;
  if (spec->nccl_gpu) o->nccl_gpu = spec->nccl_gpu;
  if (spec->nccl_nvls) o->nccl_nvls = spec->nccl_nvls;
  if (spec->nccl_collnet) o->nccl_collnet = spec->nccl_collnet;
}

/* Appends "format % value" to full[used..size). */
static void append(char *full, size_t size, size_t *used, const char *format, const char *value) {
  if (*used >= size) return;
  int n = snprintf(full + *used, size - *used, format, value);
  if (n > 0) *used += (size_t)n;
}

void fs_algorithm_spec_format(fs_algorithm_spec *spec) {
  char full[1024], buffer[400];
  size_t used = 0;
  append(full, sizeof full, &used, "%s", spec->generator ? spec->generator->name : "?");
  if (spec->segment)
    append(full, sizeof full, &used, ":segment=%s", fs_format_size(buffer, spec->segment));
  if (spec->ways) {
    snprintf(buffer, sizeof buffer, "%d", (int)spec->ways);
    append(full, sizeof full, &used, ":ways=%s", buffer);
  }
  if (spec->schedule[0]) append(full, sizeof full, &used, ":schedule=%s", spec->schedule);
  if (spec->factor_count) {
    size_t at = 0;
    for (int i = 0; i < spec->factor_count && at < sizeof buffer - 16; i++)
      at += (size_t)snprintf(buffer + at, sizeof buffer - at, "%s%d", i ? "," : "",
                             (int)spec->factors[i]);
    append(full, sizeof full, &used, ":factors=%s", buffer);
  }
  if (spec->has_root) {
    snprintf(buffer, sizeof buffer, "%d", (int)spec->root);
    append(full, sizeof full, &used, ":root=%s", buffer);
  }
  if (spec->channels) {
    snprintf(buffer, sizeof buffer, "%d", (int)spec->channels);
    append(full, sizeof full, &used, ":channels=%s", buffer);
  }
  if (spec->chunk)
    append(full, sizeof full, &used, ":chunk=%s", fs_format_size(buffer, spec->chunk));
  if (spec->protocol)
    append(full, sizeof full, &used, ":protocol=%s", fs_protocol_name(spec->protocol));
  if (spec->nccl_gpu)
    append(full, sizeof full, &used, ":gpu=%s", fs_nccl_gpu_name(spec->nccl_gpu - 1));
  if (spec->nccl_nvls)
    append(full, sizeof full, &used, ":nvls=%s", spec->nccl_nvls == FS_NCCL_SWITCH_ON ? "1" : "0");
  if (spec->nccl_collnet)
    append(full, sizeof full, &used, ":collnet=%s",
           spec->nccl_collnet == FS_NCCL_SWITCH_ON ? "1" : "0");
  /* a text too long is cut to the buffer's last byte; parse refuses it */
  size_t n = strlen(full);
  if (n >= sizeof spec->text) n = sizeof spec->text - 1;
  memcpy(spec->text, full, n);
  spec->text[n] = 0;
}

/* The option values a search tries beyond a generator's defaults: listed
 * where the worthwhile values depend on the algorithm (its default among
 * them is left out), else by the options it reads. */
typedef struct variant_list {
  const char *name;
  const char *items[4];
} variant_list;

static const variant_list variant_lists[] = {
    {"allreduce-dissemination", {"ways=2", "ways=3"}},
    {"barrier-nway", {"ways=3", "ways=4"}},
    {"bcast-chain", {"segment=32KiB", "segment=128KiB"}},
    {"bcast-knomial", {"ways=2", "ways=8"}},
    {"alltoall-scattered", {"ways=8", "ways=128"}},
    {"allreduce-reduce-bcast", {NULL}}, /* its options go to the parts: its default's take none */
};

static const char *const segment_items[] = {"segment=8KiB", "segment=32KiB", "segment=128KiB"};
static const char *const ways_items[] = {"ways=2", "ways=3", "ways=4"};

/* Adds spec "NAME:item" as entry *n of out (when it fits). */
static void add_variant(const fs_generator *g, const char *item, fs_algorithm_spec *out,
                        int capacity, int *n) {
  fs_algorithm_spec spec;
  if (!item) {
    fs_algorithm_spec_of(&spec, g);
  } else {
    char text[256];
    snprintf(text, sizeof text, "%s:%s", g->name, item);
    if (fs_algorithm_spec_parse(&spec, text, NULL)) return; /* the table names a real key */
  }
  if (*n < capacity) out[*n] = spec;
  (*n)++;
}

/* NCCL's channels and protocols: "channels=C:protocol=P" for C = 1, 2, 4,
 * ... below max and max, each protocol, but the default (1, Simple). */
static void add_nccl_variants(const fs_generator *g, int32_t max, fs_algorithm_spec *out,
                              int capacity, int *n) {
  static const char *const protocols[FS_VARIANT_PROTOCOLS] = {"LL", "LL128", "Simple"};
  int reads_protocol = (g->options & FS_GEN_PROTOCOL) != 0;
  for (int32_t c = 1, next; c > 0; c = next) {
    next = c == max ? 0 : c * 2 < max ? c * 2 : max;
    for (int p = 0; p < (reads_protocol ? FS_VARIANT_PROTOCOLS : 1); p++) {
      char item[64];
      if (c == 1 && (!reads_protocol || p == FS_VARIANT_PROTOCOLS - 1)) continue;
      snprintf(item, sizeof item, "channels=%d%s%s", (int)c, reads_protocol ? ":protocol=" : "",
               reads_protocol ? protocols[p] : "");
      add_variant(g, item, out, capacity, n);
    }
  }
}

static void add_variants_of(const fs_generator *g, int32_t max_channels, fs_algorithm_spec *out,
                            int capacity, int *n) {
  add_variant(g, NULL, out, capacity, n);
  for (size_t l = 0; l < sizeof variant_lists / sizeof variant_lists[0]; l++)
    if (strcmp(variant_lists[l].name, g->name) == 0) {
      for (int i = 0; i < 4 && variant_lists[l].items[i]; i++)
        add_variant(g, variant_lists[l].items[i], out, capacity, n);
      return;
    }
  if (g->options & FS_GEN_SEGMENT)
    for (int i = 0; i < 3; i++) add_variant(g, segment_items[i], out, capacity, n);
  if (g->options & FS_GEN_WAYS)
    for (int i = 0; i < 3; i++) add_variant(g, ways_items[i], out, capacity, n);
  if ((g->options & FS_GEN_CHANNELS) && max_channels > 0)
    add_nccl_variants(g, max_channels, out, capacity, n);
}

int fs_algorithm_variants(fs_collective c, fs_family family, int32_t max_channels,
                          fs_algorithm_spec *out, int capacity) {
  int count, n = 0;
  const fs_generator *g = fs_generator_list(&count);
  if (max_channels > FS_NCCL_MAX_CHANNELS) max_channels = FS_NCCL_MAX_CHANNELS;
  for (int i = 0; i < count; i++) {
    if (g[i].collective != c || (g[i].traits & (FS_GEN_NOT_CORRECT | FS_GEN_SELECTOR))) continue;
    if (strcmp(g[i].name, "allreduce-rm") == 0 || !fs_family_holds(family, &g[i])) continue;
    add_variants_of(&g[i], max_channels, out, capacity, &n);
  }
  return n;
}

static const char *const family_names[] = {"", "mpi", "gpu", "all"};

const char *fs_family_name(fs_family family) { return family_names[family & FS_FAMILY_ALL]; }

int fs_family_find(const char *name) {
  for (int f = FS_FAMILY_MPI; f <= FS_FAMILY_ALL; f++)
    if (strcmp(family_names[f], name) == 0) return f;
  return -1;
}

fs_family fs_family_of_model(const char *network_name) {
  return network_name && strcmp(network_name, "nccl") == 0 ? FS_FAMILY_GPU : FS_FAMILY_MPI;
}

int fs_family_holds(fs_family family, const fs_generator *g) {
  return (family & ((g->traits & FS_GEN_GPU) ? FS_FAMILY_GPU : FS_FAMILY_MPI)) != 0;
}

fs_collective fs_collective_from_name(const char *text) {
  for (int c = FS_COLLECTIVE_BARRIER; c <= FS_COLLECTIVE_LAST; c++)
    if (strcmp(fs_collective_name((fs_collective)c), text) == 0) return (fs_collective)c;
  return FS_COLLECTIVE_NONE;
}
