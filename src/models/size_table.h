/* size_table.h: model parameters that depend on the message size, as a
 * table of rows "SIZE VALUE..." read from text and interpolated linearly
 * between rows (clamped below the first row, extended along the last
 * segment above the last). Used by `pipelined` (alpha_p, alpha_r). */
#ifndef FS_SIZE_TABLE_H
#define FS_SIZE_TABLE_H

#include <stdint.h>

#include "core/error.h"
#include "core/units.h"
#include "io/text_input.h"

#define FS_SIZE_TABLE_MAX_COLUMNS 64
#define FS_SIZE_TABLE_MAX_ROWS 1000000

typedef struct fs_size_table {
  int columns; /* values per row */
  int rows;
  const int64_t *sizes;  /* strictly increasing */
  const fs_time *values; /* rows * columns, row by row */
  int owned;             /* sizes and values were allocated by the reader */
} fs_size_table;

/* Reads rows of one size and `columns` times (a bare number is ns, as in
 * fs_parse_time; negative allowed: fitted parameters can be), '#' comments
 * and blank lines; at
 * least one row. Errors: "name:line:column: expected ...". column_names
 * name the value columns in messages (NULL: generic). columns 0: as many
 * as the first row has, the same in every row. */
int fs_size_table_read(fs_text_input *in, int columns, const char *const *column_names,
                       fs_size_table *out, fs_error *err);
void fs_size_table_free(fs_size_table *table);
/* values[0..columns) at size. */
void fs_size_table_lookup(const fs_size_table *table, int64_t size, fs_time *values);
/* One column's value at size. */
fs_time fs_size_table_value(const fs_size_table *table, int64_t size, int column);

#endif
