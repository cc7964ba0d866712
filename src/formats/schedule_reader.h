/* schedule_reader.h: reads a schedule in the format its name says: GOAL for
 * *.goal and *.goal.gz, fennelsim's .dag otherwise (stdin "-" is .dag). */
#ifndef FS_SCHEDULE_READER_H
#define FS_SCHEDULE_READER_H

#include "core/program.h"

int fs_schedule_is_goal(const char *path);
fs_program *fs_schedule_read(const char *path, fs_error *err);

#endif
