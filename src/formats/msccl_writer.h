/* msccl_writer.h: writes an MSCCL algorithm (formats/msccl_reader.h) as
 * XML text, the inverse of the reader: one <algo> with every attribute
 * the current executor requires (inplace, outofplace, minBytes, maxBytes;
 * nthreads only when set), its <gpu>s, <tb>s and <step>s in order, one
 * element a line, attributes in the order the executor's documentation
 * lists them. Reading the text back gives the same algorithm, and writing
 * that again the same bytes. */
#ifndef FS_MSCCL_WRITER_H
#define FS_MSCCL_WRITER_H

#include <stddef.h>

#include "formats/msccl_reader.h"

/* The XML of m as a NUL-terminated malloc'd text (its length in *length),
 * or NULL when out of memory. */
char *fs_msccl_xml(const fs_msccl *m, size_t *length);

#endif
