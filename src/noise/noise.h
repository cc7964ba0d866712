/* noise.h: noise around any model, by composition. The engine asks the
 * noise layer (through its perturbation, perturbation.c) to perturb each
 * interval a model gives it:
 *
 *   host     a CPU occupation: a sleep, a compute, the local part of a
 *            put/get/send (o, alpha_r), the receiver's CPU time for a
 *            message;
 *   net      a transfer's latency: remote completion (or arrival) minus
 *            local completion; when a model keeps the sender busy until the
 *            data lands (hockney: local = remote), the whole interval;
 *   compute  compute tasks only (after host noise).
 *
 * Each kind has a distribution (noise/distribution.h) and a mode:
 * multiplicative (d' = d X, the default) or additive (d' = max(0, d + X),
 * X in ns). A per-rank term replaces the general one for its ranks (a
 * straggler). A detour trace (LogGOPSim's noise traces: `start duration`
 * lines in ns) makes every rank's CPU unavailable during each detour, the
 * trace repeating with its span and each rank starting at an offset drawn
 * from the seed: an occupation that meets a detour ends that much later.
 *
 * Draws are keyed by (seed, rank, draw index): the engine counts draws per
 * rank, in its deterministic event order, so a run depends only on its
 * seed. */
#ifndef FS_NOISE_H
#define FS_NOISE_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/units.h"

typedef enum fs_noise_kind {
  FS_NOISE_HOST,
  FS_NOISE_NET,
  FS_NOISE_COMPUTE,
  FS_NOISE_KINDS
} fs_noise_kind;

typedef struct fs_noise fs_noise;

fs_noise *fs_noise_new(void);
void fs_noise_free(fs_noise *noise);

/* "net=lognormal:mu=0,sigma=0.2", "host=exponential:mean=50,mode=add":
 * the general term of a kind. 0, or -1 with err set. */
int fs_noise_add(fs_noise *noise, const char *spec, fs_error *err);
/* "3:host=normal:mu=1,sigma=0.5" or "0-7:net=...": a term for those ranks. */
int fs_noise_add_rank(fs_noise *noise, const char *spec, fs_error *err);
/* Reads a detour trace (`start duration` per line, ns, `#` comments). */
int fs_noise_read_trace(fs_noise *noise, const char *path, fs_error *err);
/* The same from an open reader (tests, fuzzing). */
typedef struct fs_text_input fs_text_input;
int fs_noise_read_trace_input(fs_noise *noise, fs_text_input *in, fs_error *err);
/* Checks the per-rank terms against the program's rank count and prepares
 * the per-rank lookup. */
int fs_noise_prepare(fs_noise *noise, int32_t ranks, fs_error *err);

/* Whether any term or trace is set (without noise the engine skips it all). */
int fs_noise_active(const fs_noise *noise);
/* JSON object members describing the noise, keyed as the options spell them:
 * "\"host\": \"...\", \"3:net\": \"...\", \"0-7:host\": \"...\"". */
void fs_noise_describe(const fs_noise *noise, char *buffer, size_t size);

/* The terms as the options spell them, space-separated ("net=lognormal:sigma=0.2
 * 3:host=normal:mu=1,sigma=0.5 trace=PATH"; mode=add kept, mode=mul dropped as the
 * default); empty without noise. For the samples' sidecar. */
void fs_noise_spec(const fs_noise *noise, char *buffer, size_t size);

/* Noise for the engine's next runs, drawn under `seed` (perturbation.c:
 * the engine's perturbation, core/perturbation.h; NULL or an empty noise:
 * none). The noise must be prepared for the program's ranks and outlive
 * the runs. 0, or -1 with err set (out of memory). */
typedef struct fs_engine fs_engine;
int fs_engine_set_noise(fs_engine *e, const fs_noise *noise, uint64_t seed, fs_error *err);

/* What the perturbation asks. d perturbed by rank's term of `kind`, with draw
 * `index` of the rank under `seed`; d itself when the kind has no term. */
fs_time fs_noise_apply(const fs_noise *noise, fs_noise_kind kind, int32_t rank, uint64_t seed,
                       uint64_t index, fs_time d);
/* Whether rank has a term of `kind` (no draw is spent otherwise). */
int fs_noise_has(const fs_noise *noise, fs_noise_kind kind, int32_t rank);
/* The end of a CPU occupation of rank from `start` lasting until `end`
 * without detours, once the detours it meets are added; end without a
 * trace. */
fs_time fs_noise_detour_end(const fs_noise *noise, int32_t rank, uint64_t seed, fs_time start,
                            fs_time end);
int fs_noise_has_trace(const fs_noise *noise);

#endif
