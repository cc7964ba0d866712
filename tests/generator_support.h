/* generator_support.h: what the generator suites share: the common
 * options, generating a program that must build (with an exact
 * reservation) or must be refused with a message. */
#ifndef FS_TEST_GENERATOR_SUPPORT_H
#define FS_TEST_GENERATOR_SUPPORT_H

#include "core/error.h"
#include "core/program.h"
#include "generators/generators.h"

/* Options for ranks and size, one round, root and platform (NULL: none);
 * every other option zero. */
fs_generator_options fs_test_options(int32_t ranks, int64_t size, int32_t root,
                                     const fs_platform *platform);
/* The program of generator `name`; ck_asserts that it was built, finalized
 * and reserved exactly. The caller frees it. */
fs_program *fs_test_generate(const char *name, const fs_generator_options *o);
/* The makespan of generator `name` under the models; ck_asserts that the
 * program was built and the run completed. */
fs_time fs_test_generated_makespan(const char *name, const fs_generator_options *o,
                                   const char *network, const char *compute,
                                   const char *parameters);
/* The refusal of generator `name` with options o: ck_asserts that it
 * failed with a message, and returns the message (in err). */
const char *fs_test_generate_error(const char *name, const fs_generator_options *o, fs_error *err);
/* ck_asserts that generator `name` refuses o with a message that holds part. */
void fs_test_generate_refused(const char *name, const fs_generator_options *o, const char *part);
/* Options of an NCCL generator: ranks, size, --channels and --chunk (0:
 * the default), root 0, no platform. */
fs_generator_options fs_test_nccl_options(int32_t ranks, int64_t size, int32_t channels,
                                          int64_t chunk);
/* ck_asserts that generator `name` with options o passes the data-flow
 * check of its collective (the message names the options). */
void fs_test_expect_flow(const char *name, const fs_generator_options *o);
/* ck_asserts rank r's tasks in program order, written
 * S<peer>@<cpu>/<tag>:<bytes>, R<peer>@<cpu>/<tag>:<bytes>, C@<cpu>:<bytes>
 * and joined by spaces (the NCCL generators' ports and tags). */
void fs_test_expect_story(const fs_program *p, int32_t r, const char *expected);

#endif
