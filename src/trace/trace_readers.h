/* trace_readers.h: the per-format trace readers behind fs_trace_read.
 *
 * Each takes the per-rank files of one recording, in rank order (paths[r]
 * holds rank r), except OTF2 (one anchor file) and SimGrid (per-rank files
 * in the order its description file lists them). Each returns a complete
 * fs_trace, or NULL with err set to "FILE:LINE:COLUMN: what was expected"
 * (exit status 2 in the CLI). None of them crashes, hangs or allocates
 * without bound on malformed input. */
#ifndef FS_TRACE_READERS_H
#define FS_TRACE_READERS_H

#include "trace/trace.h"

/* fennelsim's own tracer (tools/tracer, docs/TRACES.md): rank-N.fstrace[.gz]. */
fs_trace *fs_fennel_trace_read(const char *const *paths, int count, fs_error *err);
/* The first line of a fennelsim trace, for detection. */
#define FS_FENNEL_TRACE_MAGIC "# fennelsim-trace"

/* liballprof's text format (pmpi-trace-rank-N.txt). */
fs_trace *fs_liballprof_read(const char *const *paths, int count, fs_error *err);
#define FS_LIBALLPROF_MAGIC "# collprof"

/* SimGrid's time-independent traces ("0 send 1 1e6"): per-rank files. */
fs_trace *fs_simgrid_trace_read(const char *const *paths, int count, fs_error *err);

/* OTF2 through the OTF2 library: the anchor file (traces.otf2). Without
 * OTF2 support it fails with a message that says so. */
fs_trace *fs_otf2_read(const char *anchor, fs_error *err);
int fs_otf2_available(void);

#endif
