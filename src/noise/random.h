/* random.h: counter-based random numbers (Philox4x32-10, Salmon et al.,
 * "Parallel random numbers: as easy as 1, 2, 3", SC 2011; Random123).
 *
 * There is no generator state: a value is a pure function of
 * (seed, stream, counter), so a sample depends only on the numbers that name
 * it, never on threads, scheduling or the other samples. The 64-bit seed is
 * Philox's key; the stream and the counter make its 128-bit counter.
 *
 * Conventions: the stream is a rank (fs_random_stream separates purposes,
 * e.g. host and network noise of one rank), and the counter of the j-th
 * uniform of draw `index` is fs_random_counter(index, j) = index << 16 | j,
 * so one draw (a rejection sampler) has 65536 uniforms of its own and
 * indices run to 2^48. */
#ifndef FS_RANDOM_H
#define FS_RANDOM_H

#include <stdint.h>

#define FS_RANDOM_DRAW_BITS 16 /* low bits of a counter: j within one draw */
#define FS_RANDOM_DRAW_UNIFORMS ((uint32_t)1 << FS_RANDOM_DRAW_BITS)
/* The stream of draws made once per run rather than per rank. */
#define FS_RANDOM_STREAM_RUN UINT64_MAX

/* The Philox4x32 bijection with 10 rounds, exactly as Random123's
 * philox4x32_R(10, counter, key) (checked against its known answers). */
void fs_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]);

/* 64 random bits: Philox with key = seed (low word first) and counter =
 * (counter low, counter high, stream low, stream high); the result is
 * out[0] | out[1] << 32. */
uint64_t fs_random_bits(uint64_t seed, uint64_t stream, uint64_t counter);

/* Uniform in (0, 1), open: k * 2^-53 from the top 53 bits k, with k = 0
 * (probability 2^-53) mapped to 2^-54. Never 0 or 1, so log(u) is finite. */
double fs_random_uniform(uint64_t seed, uint64_t stream, uint64_t counter);

/* Counter of the j-th uniform (j < 65536) of draw `index` (mod 2^48). */
static inline uint64_t fs_random_counter(uint64_t index, uint32_t j) {
  return index << FS_RANDOM_DRAW_BITS | (j & (FS_RANDOM_DRAW_UNIFORMS - 1));
}

/* A stream per (purpose, rank): purposes are small numbers chosen by the
 * caller, so that two noise sources of one rank never share uniforms. */
static inline uint64_t fs_random_stream(uint32_t purpose, uint32_t rank) {
  return (uint64_t)purpose << 32 | rank;
}

#endif
