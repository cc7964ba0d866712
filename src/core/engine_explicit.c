/* engine_explicit.c: the engine's steps (engine_steps.h) for explicit programs: task fields are plain array reads. */
#define FS_PROGRAM_EXPLICIT 1
#define FS_ENGINE_RUN fs_engine_run_explicit
#include "core/engine_steps.h"
