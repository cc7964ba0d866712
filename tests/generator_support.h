/* generator_support.h: what the generator suites share: generating a
 * program that must build (with an exact reservation) or must be refused
 * with a message. */
#ifndef FS_TEST_GENERATOR_SUPPORT_H
#define FS_TEST_GENERATOR_SUPPORT_H

#include "core/error.h"
#include "core/program.h"
#include "generators/generators.h"

/* The program of generator `name`; ck_asserts that it was built, finalized
 * and reserved exactly. The caller frees it. */
fs_program *fs_test_generate(const char *name, const fs_generator_options *o);
/* The refusal of generator `name` with options o: ck_asserts that it
 * failed with a message, and returns the message (in err). */
const char *fs_test_generate_error(const char *name, const fs_generator_options *o,
                                   fs_error *err);

#endif
