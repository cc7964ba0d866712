/* fennel_trace_reader.h: fennelsim's own trace format read from inputs
 * already open (memory blocks in tests and the fuzz target); paths go
 * through fs_fennel_trace_read (trace_readers.h). */
#ifndef FS_FENNEL_TRACE_READER_H
#define FS_FENNEL_TRACE_READER_H

#include "io/text_input.h"
#include "trace/trace.h"

/* inputs[r] holds rank r; none is closed. NULL with err set on bad input. */
fs_trace *fs_fennel_trace_read_inputs(fs_text_input *const *inputs, int count, fs_error *err);

#endif
