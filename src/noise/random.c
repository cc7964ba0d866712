/* random.c: see random.h. Philox4x32-10 as published: each round
 * multiplies counter words 0 and 2 by two constants, and mixes the high
 * halves with words 1 and 3 and the key; the key grows by two Weyl
 * constants between rounds. */
#include "noise/random.h"

#define PHILOX_M0 UINT32_C(0xD2511F53)
#define PHILOX_M1 UINT32_C(0xCD9E8D57)
#define PHILOX_W0 UINT32_C(0x9E3779B9) /* golden ratio */
#define PHILOX_W1 UINT32_C(0xBB67AE85) /* sqrt(3) - 1 */
#define PHILOX_ROUNDS 10

static void philox_round(uint32_t c[4], const uint32_t k[2]) {
  uint64_t p0 = (uint64_t)PHILOX_M0 * c[0], p1 = (uint64_t)PHILOX_M1 * c[2];
  uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
  uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
  uint32_t c1 = c[1], c3 = c[3];
  c[0] = hi1 ^ c1 ^ k[0];
  c[1] = lo1;
  c[2] = hi0 ^ c3 ^ k[1];
  c[3] = lo0;
}

void fs_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]) {
  uint32_t c[4] = {counter[0], counter[1], counter[2], counter[3]};
  uint32_t k[2] = {key[0], key[1]};
  for (int round = 0; round < PHILOX_ROUNDS; round++) {
    if (round > 0) k[0] += PHILOX_W0, k[1] += PHILOX_W1;
    philox_round(c, k);
  }
  for (int i = 0; i < 4; i++) out[i] = c[i];
}

uint64_t fs_random_bits(uint64_t seed, uint64_t stream, uint64_t counter) {
  uint32_t c[4] = {(uint32_t)counter, (uint32_t)(counter >> 32), (uint32_t)stream,
                   (uint32_t)(stream >> 32)};
  uint32_t k[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
  uint32_t out[4];
  fs_philox4x32_10(c, k, out);
  return (uint64_t)out[0] | (uint64_t)out[1] << 32;
}

double fs_random_uniform(uint64_t seed, uint64_t stream, uint64_t counter) {
  uint64_t k = fs_random_bits(seed, stream, counter) >> 11;
  const double step = 1.0 / 9007199254740992.0; /* 2^-53: k * step is exact */
  return k ? (double)k * step : step / 2;
}
