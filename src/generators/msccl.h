/* msccl.h: the lowering of an MSCCL algorithm (formats/msccl_reader.h)
 * to a program, behind generator msccl (msccl.c says how each step
 * becomes tasks); callable on an algorithm in memory (the fuzzer). */
#ifndef FS_MSCCL_H
#define FS_MSCCL_H

#include "core/error.h"
#include "core/program.h"
#include "formats/msccl_reader.h"
#include "generators/generators.h"

/* The program of m under o (--size, --reduce-time, --ranks 0 or ngpus);
 * NULL with err set when the size does not split into the chunks, the
 * ranks differ, or the data flow is wrong (path names the file). */
fs_program *fs_msccl_program(const fs_msccl *m, const char *path, const fs_generator_options *o,
                             fs_error *err);

#endif
