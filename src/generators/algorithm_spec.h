/* algorithm_spec.h: one algorithm of a sweep, a search or a replay's
 * --algo, written "NAME[:KEY=VALUE]...", and its generator options.
 *
 *   allreduce-ring                      a generator with its defaults
 *   bcast-chain:segment=32KiB           with a segment size
 *   barrier-nway:ways=3                 with a number of ways (a radix)
 *   allreduce-rm:schedule=a4,a2         with a recursive-multiplying schedule
 *   allreduce-rm:factors=4,2            or its factors
 *   reduce-binomial:root=3              with a root
 *   allreduce-nccl-ring:channels=4:chunk=512KiB:protocol=LL128
 *                                       NCCL's channels, chunk and protocol
 *   allreduce-mpich, bcast-ompi         a library's selection (mpi_selection.h),
 *                                       resolved for each (ranks, size)
 *   allreduce-nccl:gpu=ampere:nvls=0:collnet=1
 *                                       NCCL's selection on that machine
 *
 * The keys are the generator's own options (FS_GEN_SEGMENT, WAYS, SCHEDULE,
 * FACTORS, ROOT, CHANNELS, CHUNK, PROTOCOL, NCCL_MACHINE: gpu, nvls,
 * collnet); a key the generator does not read is an error. A value holds
 * no ':' (a schedule's commas are its own). The canonical text (keys in
 * the order segment, ways, schedule, factors, root, channels, chunk,
 * protocol, gpu, nvls, collnet; sizes as fs_format_size writes them)
 * names the algorithm in tables and plots. */
#ifndef FS_ALGORITHM_SPEC_H
#define FS_ALGORITHM_SPEC_H

#include <stdint.h>

#include "core/error.h"
#include "generators/generators.h"

#define FS_ALGORITHM_TEXT_MAX 192 /* canonical text, bytes with the NUL */

typedef struct fs_algorithm_spec {
  const fs_generator *generator;
  int64_t segment; /* 0: the generator's default */
  int32_t ways;    /* 0: the generator's default */
  int32_t root;    /* used when has_root */
  int has_root;
  char schedule[128]; /* "" : none */
  int32_t factors[64];
  int factor_count;
  int32_t channels;                      /* NCCL's (nccl_layout.h): 0 = the generator's default */
  int64_t chunk;                         /* 0: the default */
  int protocol;                          /* an fs_protocol; NONE: the default */
  int nccl_gpu, nccl_nvls, nccl_collnet; /* as fs_generator_options'; 0: the default */
  char text[FS_ALGORITHM_TEXT_MAX];      /* canonical "NAME[:key=value]..." */
} fs_algorithm_spec;

/* Parses text; 0, or -1 with err naming the text and what was expected
 * ("bcast-chain:segmnt=8KiB: unknown key 'segmnt' (bcast-chain takes
 * segment, root)"; an unknown NAME suggests the closest generator). */
int fs_algorithm_spec_parse(fs_algorithm_spec *spec, const char *text, fs_error *err);

/* The spec of a generator with its defaults (text = its name). */
void fs_algorithm_spec_of(fs_algorithm_spec *spec, const fs_generator *generator);

/* Copies the spec's options into o (segment, ways, schedule, factors, root,
 * channels, chunk, protocol, gpu, nvls, collnet when given); the other fields of o are left as they are. o->schedule
 * points into spec, which must outlive o's use. */
void fs_algorithm_spec_apply(const fs_algorithm_spec *spec, fs_generator_options *o);

/* Writes the canonical text into spec->text (after a caller set fields). */
void fs_algorithm_spec_format(fs_algorithm_spec *spec);

/* Which algorithms a collective's name stands for in best, sweep and
 * validate: the MPI libraries' (every generator without FS_GEN_GPU), the
 * GPU libraries' (FS_GEN_GPU: NCCL's), or both. The default follows the
 * network model: gpu under nccl (its transfers are NCCL's channel steps),
 * mpi under every other. */
typedef enum fs_family { FS_FAMILY_MPI = 1, FS_FAMILY_GPU = 2, FS_FAMILY_ALL = 3 } fs_family;

/* "mpi", "gpu", "all"; find returns -1 for another name. */
const char *fs_family_name(fs_family family);
int fs_family_find(const char *name);
/* The default family under the network model called network_name (its
 * fs_network_model name, a model file's included: "nccl" is gpu). */
fs_family fs_family_of_model(const char *network_name);
/* Whether generator g belongs to family. */
int fs_family_holds(fs_family family, const fs_generator *g);

/* The channel counts a search tries for NCCL's generators: 1, 2, 4, ...
 * below max_channels, and max_channels (1 to FS_NCCL_MAX_CHANNELS), each
 * with the protocols LL, LL128 and Simple, NCCL's default chunk. */
#define FS_VARIANT_PROTOCOLS 3

/* The algorithms a search over collective c tries, in a fixed order: every
 * generator of c in family that computes it (not FS_GEN_NOT_CORRECT, not a
 * selector), with its default options, and for those that take them the
 * option values worth trying (segments 8KiB, 32KiB, 128KiB; ways 2, 3, 4;
 * NCCL's channels up to max_channels times the three protocols; not
 * allreduce-rm, whose schedules best searches by itself). Writes at most
 * capacity specs to out and returns how many there are in all. */
int fs_algorithm_variants(fs_collective c, fs_family family, int32_t max_channels,
                          fs_algorithm_spec *out, int capacity);

/* The collective named text ("allreduce"), or FS_COLLECTIVE_NONE. */
fs_collective fs_collective_from_name(const char *text);

#endif
