/* fuzz_noise.c: libFuzzer target for the noise layer's readers: the first
 * line is a --noise or --noise-rank spec (and so a distribution), the rest
 * a detour trace. Any input must be read or rejected with a message, and a
 * noise that was read must give finite, non-negative times. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/text_input.h"
#include "noise/noise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data, *newline = memchr(text, '\n', size);
  size_t spec_length = newline ? (size_t)(newline - text) : size;
  char spec[512];
  if (spec_length >= sizeof spec || memchr(text, 0, spec_length)) return 0;
  memcpy(spec, text, spec_length);
  spec[spec_length] = 0;
  fs_noise *noise = fs_noise_new();
  if (!noise) return 0;
  fs_error err;
  int per_rank = spec[0] >= '0' && spec[0] <= '9';
  int spec_ok =
      (per_rank ? fs_noise_add_rank(noise, spec, &err) : fs_noise_add(noise, spec, &err)) == 0;
  int trace_ok = 0;
  if (newline) {
    fs_text_input *in =
        fs_text_input_open_memory(newline + 1, size - spec_length - 1, "fuzz.trace");
    if (in) trace_ok = fs_noise_read_trace_input(noise, in, &err) == 0;
    fs_text_input_close(in);
  }
  if ((spec_ok || trace_ok) && fs_noise_prepare(noise, 4, &err) == 0) {
    for (int kind = 0; kind < FS_NOISE_KINDS; kind++)
      for (uint64_t draw = 0; draw < 8; draw++) {
        fs_time d = fs_noise_apply(noise, (fs_noise_kind)kind, (int32_t)(draw % 4), 7, draw,
                                   (fs_time)draw * 1000003);
        if (d < 0) abort();
      }
    for (fs_time start = 0; start < 5000; start += 977) {
      fs_time end = fs_noise_detour_end(noise, 1, 3, start, start + 1234);
      if (end < start + 1234) abort();
    }
    char description[2048];
    fs_noise_describe(noise, description, sizeof description);
  }
  fs_noise_free(noise);
  return 0;
}
