/* platform_xml.h: reads a platform (platform.h) from an XML file.
 *
 * Schema (models/README.md has the same with examples):
 *
 *   <platform nodes="M" cores="Q">          M, Q whole numbers >= 1
 *     <level name="rack" fanout="2"/>       0 or more, bottom-up: level 1, 2, ...
 *     <channel name="shm" level="0"/>       0 or more; none: shm at 0, net at 1
 *     <channel name="net" level="1"/>
 *     <mapping kind="sequential"/>          at most one; none: sequential
 *     <mapping kind="explicit">0 0 1 1</mapping>   node of rank 0, 1, ...
 *   </platform>
 *
 * kind is sequential, round-robin or explicit (also seq, rr). Only these
 * elements and attributes, no namespaces, no text but blanks outside the
 * explicit list; comments are fine. Names are [A-Za-z][A-Za-z0-9_.-]*.
 * An explicit list holds whitespace-separated node numbers, exactly one
 * per rank; it is at most 10 MB of text (libxml2's limit on a text node,
 * about a million ranks: larger runs use sequential or round-robin).
 *
 * ranks: the program's rank count P. 0 lets the file decide: an explicit
 * list's length, or M * Q for sequential and round-robin (4 bytes per
 * rank, so a caller reading untrusted files should pass the real count).
 *
 * Safety: the file is read by this code (at most FS_PLATFORM_XML_MAX_BYTES,
 * never decompressed) and parsed from memory by libxml2 with no network
 * access, no entity substitution and no DTD: a DOCTYPE stops the parse
 * before its internal subset is read, so entity bombs and external entities
 * cost nothing. At most FS_PLATFORM_XML_MAX_ELEMENTS elements are built.
 *
 * Errors read "FILE:LINE: expected ..." (LINE: where the element's start
 * tag ends, as libxml2 records it); malformed XML gives
 * "FILE:LINE:COLUMN: expected well-formed XML (libxml2: MESSAGE)". */
#ifndef FS_PLATFORM_XML_H
#define FS_PLATFORM_XML_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "platform/platform.h"

#define FS_PLATFORM_XML_MAX_BYTES ((size_t)64 << 20)
#define FS_PLATFORM_XML_MAX_ELEMENTS 1024

/* A mapped platform, or NULL with err set. */
fs_platform *fs_platform_read_xml(const char *path, int64_t ranks, fs_error *err);
/* The same from data[0..length); name stands for the file in messages. */
fs_platform *fs_platform_read_xml_memory(const char *data, size_t length, const char *name,
                                         int64_t ranks, fs_error *err);

#endif
