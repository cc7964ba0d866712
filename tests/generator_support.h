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
/* The refusal of generator `name` with options o: ck_asserts that it
 * failed with a message, and returns the message (in err). */
const char *fs_test_generate_error(const char *name, const fs_generator_options *o,
                                   fs_error *err);

#endif
