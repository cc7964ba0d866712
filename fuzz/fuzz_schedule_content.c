/* fuzz_schedule_content.c: libFuzzer target for reading a schedule whose
 * name says nothing (stdin, an unknown extension): the first line that is
 * not blank picks the .dag or the GOAL reader (formats/schedule_reader.h).
 * Every input must give a finalized program or an error that names the
 * input ("fuzz:LINE..." or "fuzz: empty input..."); a small program is
 * simulated (simulate.h). Anything else (a crash, a leak, a sanitizer
 * report, an error without the input's name) is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/program.h"
#include "formats/schedule_reader.h"
#include "simulate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fs_text_input *in = fs_text_input_open_memory((const char *)data, size, "fuzz");
  if (!in) return 0;
  fs_error err;
  err.message[0] = 0;
  fs_program *p = fs_schedule_read_input(in, "fuzz", &err);
  fs_text_input_close(in);
  if (!p) {
    if (strncmp(err.message, "fuzz:", 5) != 0) abort();
    return 0;
  }
  if (!p->finalized) abort();
  fuzz_simulate(p, size ? data[0] : 0);
  fs_program_free(p);
  return 0;
}
