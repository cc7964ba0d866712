/* engine_symmetric.c: the engine's steps (engine_steps.h) for rank-symmetric programs (core/symmetric.h): task fields are read from the template, inline. */
#define FS_PROGRAM_SYMMETRIC 1
#define FS_ENGINE_RUN fs_engine_run_symmetric
#include "core/engine_steps.h"
