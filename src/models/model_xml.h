/* model_xml.h: reads a model file (models/NAME.xml): a model's kind and
 * its parameters, with size-dependent tables inline.
 *
 * Schema (models/README.md has the same with an example):
 *
 *   <model kind="taulop">                     a built-in network model
 *     <param name="shm_o" value="0.1095us"/>  as --param shm_o=0.1095us
 *     <table name="shm_table">                as --param shm_table=FILE,
 *       0B 1.683us 2.5245us ...               the rows kept as text
 *     </table>
 *   </model>
 *
 * Only these elements and attributes, no namespaces, each name once;
 * comments are fine outside <table> ('#' comments inside it). Names are
 * [A-Za-z][A-Za-z0-9_.-]*, at most 63 bytes.
 *
 * A table's fs_parameter has value = the file's name and text = its rows,
 * preceded by blank lines so that the text's line numbers are the file's:
 * a bad row reads "FILE:LINE:COLUMN: expected ..." at its XML line.
 *
 * Safety as for platform files (io/xml_input.h): read by this code,
 * at most FS_MODEL_XML_MAX_BYTES and FS_MODEL_XML_MAX_ELEMENTS, no
 * network, no DTD, no entities. Errors read "FILE:LINE: expected ...". */
#ifndef FS_MODEL_XML_H
#define FS_MODEL_XML_H

#include <stddef.h>

#include "core/error.h"
#include "models/parameters.h"

#define FS_MODEL_XML_MAX_BYTES ((size_t)64 << 20)
#define FS_MODEL_XML_MAX_ELEMENTS 1024

typedef struct fs_model_file {
  char *name; /* the file, as given */
  char *kind; /* the <model>'s kind */
  int kind_line;
  fs_parameters params; /* keys, values and texts owned by the file */
  int *lines;           /* params.count XML lines, one per parameter */
} fs_model_file;

/* The file's contents, or NULL with err set. Free with fs_model_file_free.
 * A parameter naming a file by a relative path (a table file,
 * fs_parameter_names_file) names it beside the model file when it exists
 * there: value becomes DIR/VALUE; else it stays as written. */
fs_model_file *fs_model_file_read(const char *path, fs_error *err);
/* The same from data[0..length); name stands for the file in messages. */
fs_model_file *fs_model_file_read_memory(const char *data, size_t length, const char *name,
                                         fs_error *err);
void fs_model_file_free(fs_model_file *file);

#endif
