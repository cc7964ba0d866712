/* xml_input.h: reading an XML file safely with libxml2, shared by the
 * platform and model readers.
 *
 * The file is read by this code (at most max_bytes, never decompressed)
 * and parsed from memory with no network access, no entity substitution
 * and no DTD: a DOCTYPE stops the parse before its internal subset is
 * read, so entity bombs and external entities cost nothing. At most
 * max_elements elements are built. libxml2's messages are kept off stderr.
 *
 * Errors: "NAME:LINE: expected ...", malformed XML as
 * "NAME:LINE:COLUMN: expected well-formed XML (libxml2: MESSAGE)". */
#ifndef FS_XML_INPUT_H
#define FS_XML_INPUT_H

#include <stddef.h>

#include <libxml/tree.h>

#include "core/error.h"

/* The whole file, refusing more than max_bytes (also for pipes); caller
 * frees. NULL with err set as "PATH: cannot open" and the like. */
char *fs_xml_read_file(const char *path, size_t max_bytes, size_t *length, fs_error *err);
/* The document parsed from data[0..length) (caller frees with xmlFreeDoc),
 * or NULL with err set; name stands for the file in messages and root
 * names the expected root element in the message for an empty input. */
xmlDocPtr fs_xml_parse(const char *data, size_t length, const char *name, const char *root,
                       size_t max_bytes, int max_elements, fs_error *err);
/* The same, accepting a DOCTYPE line naming doctype with no internal
 * subset (SimGrid's `<!DOCTYPE platform SYSTEM "...">`): its DTD is never
 * read; a DOCTYPE with an internal subset or another name is refused. */
xmlDocPtr fs_xml_parse_doctype(const char *data, size_t length, const char *name, const char *root,
                               const char *doctype, size_t max_bytes, int max_elements,
                               fs_error *err);

/* Walking a parsed tree. */
/* "FILE:LINE: message" at node's line into err; returns -1. */
int fs_xml_error_at(fs_error *err, const char *file, const xmlNode *node, const char *format, ...)
    FS_PRINTF(4, 5);
/* An element called name, without a namespace. */
int fs_xml_is_element(const xmlNode *node, const char *name);
/* Text of blanks only (or none). */
int fs_xml_is_blank(const xmlChar *text);

#endif
