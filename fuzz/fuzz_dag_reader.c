/* fuzz_dag_reader.c: libFuzzer target for the .dag reader. Every input must
 * either give a finalized program, which the writer must then accept (it is
 * written to /dev/null), or an error that names the input and a line
 * ("fuzz:LINE..."). A small program is also simulated (simulate.h).
 * Anything else (a crash, a leak, a sanitizer report, an error without
 * position, an unwritable program, a failed run) is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/program.h"
#include "formats/dag_reader.h"
#include "formats/dag_writer.h"
#include "simulate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fs_error err;
  err.message[0] = 0;
  fs_program *p = fs_dag_read_memory((const char *)data, size, "fuzz", &err);
  if (p) {
    if (!p->finalized || fs_dag_write(p, "/dev/null", &err) != 0) abort();
    fuzz_simulate(p, size ? data[size - 1] : 0);
    fs_program_free(p);
  } else if (strncmp(err.message, "fuzz:", 5) != 0 || err.message[5] < '0' ||
             err.message[5] > '9') {
    abort();
  }
  return 0;
}
