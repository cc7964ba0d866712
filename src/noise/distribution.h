/* distribution.h: the distributions of noise samples, parsed from text such
 * as "lognormal:mu=0,sigma=0.2" and drawn from counter-based random numbers
 * (random.h), so a draw is a pure function of (seed, stream, index).
 *
 * Kinds and parameters (any order, each at most once; lognormal's mu may be
 * left out and is then 0; values are plain numbers, units belong to the
 * caller):
 *   constant:value=X                 X
 *   normal:mu=M,sigma=S              normal truncated at 0 (needs M >= -3 S)
 *   lognormal:mu=M,sigma=S           exp(normal(M, S))
 *   gamma:shape=K,scale=T            density x^(K-1) e^(-x/T)
 *   exponential:mean=M | rate=R      mean M = 1/R
 *   uniform:min=A,max=B              uniform on [A, B]
 *   beta-prime:alpha=A,beta=B        G1/G2, G1 ~ gamma(A, 1), G2 ~ gamma(B, 1)
 *   empirical:file=PATH              one of the file's samples, each equally
 *                                    likely (the path is the rest of the text)
 * A distribution is read-only after parsing: threads may share it. */
#ifndef FS_DISTRIBUTION_H
#define FS_DISTRIBUTION_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* An empirical file holds at most this many samples (8 bytes each). */
#define FS_DISTRIBUTION_SAMPLES_MAX ((int64_t)10000000)

typedef enum fs_distribution_kind {
  FS_DISTRIBUTION_CONSTANT,
  FS_DISTRIBUTION_NORMAL,
  FS_DISTRIBUTION_LOGNORMAL,
  FS_DISTRIBUTION_GAMMA,
  FS_DISTRIBUTION_EXPONENTIAL,
  FS_DISTRIBUTION_UNIFORM,
  FS_DISTRIBUTION_BETA_PRIME,
  FS_DISTRIBUTION_EMPIRICAL,
} fs_distribution_kind;

typedef struct fs_distribution {
  fs_distribution_kind kind;
  /* In the order of the table above: value; mu, sigma; mu, sigma; shape,
   * scale; mean (a rate is stored as its mean); min, max; alpha, beta. */
  double parameter[2];
  char *file;      /* empirical: the path, as given */
  double *samples; /* empirical: the file's samples, in file order */
  int64_t sample_count;
} fs_distribution;

/* Parses text (NUL-terminated) into *out: 0, or -1 with err set as
 * "lognormal: sigma must be >= 0, not -1" (an empirical file's errors are
 * "FILE:LINE:COLUMN: ..."). Nothing needs freeing after -1. */
int fs_distribution_parse(const char *text, fs_distribution *out, fs_error *err);
/* Frees an empirical distribution's samples and path (NULL is fine). */
void fs_distribution_free(fs_distribution *d);

/* Draw `index` (taken mod 2^48) of stream `stream` under `seed`. Draw index
 * uses only the uniforms fs_random_counter(index, j), j < 65536. */
double fs_distribution_draw(const fs_distribution *d, uint64_t seed, uint64_t stream,
                            uint64_t index);

/* Mean and variance from the definitions (INFINITY where they do not exist:
 * beta-prime with beta <= 1, resp. <= 2); empirical: of the samples (1/n). */
double fs_distribution_mean(const fs_distribution *d);
double fs_distribution_variance(const fs_distribution *d);

/* Canonical text that fs_distribution_parse reads back to the same
 * distribution: "lognormal:mu=0,sigma=0.2", "exponential:mean=0.5";
 * numbers in the shortest form that reads back exactly. Truncated to fit
 * size bytes (256 hold any but a long empirical path). Returns buffer. */
char *fs_distribution_describe(const fs_distribution *d, char *buffer, size_t size);

#endif
