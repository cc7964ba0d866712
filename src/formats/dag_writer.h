/* dag_writer.h: writes a program in the canonical .dag text form.
 *
 * Canonical form: the header, "ranks N", then one line per task in id order:
 * NAME KIND RANK and the fields in a fixed order (to/from, size, tag, time
 * or skew, cpu, nic, proto, any, concurrent, blocking, after, label), times and
 * sizes in their canonical units; a recv's any source and any tag as
 * "any"; tag, cpu and nic only when not 0, and only on the kinds that take
 * them. A program keeps no predecessor lists, so after= lists each task's
 * dependencies sorted by predecessor id (for the same predecessor ":start",
 * then ":local", then the plain one), not in the order a file gave them.
 * Reading the output gives the same program (fields, names, labels and the
 * same successor arrays), and writing that again gives the same bytes. */
#ifndef FS_DAG_WRITER_H
#define FS_DAG_WRITER_H

#include "core/program.h"
#include "io/atomic_file.h"

/* Writes a finalized program to path atomically (gzip for ".gz", "-" is
 * stdout). Fails, writing nothing, when a name or label cannot be written
 * so that it reads back (names: letters, digits, '_', '.', '-', unique, not
 * "ranks"; labels: printable, no blanks, no '#'; tags: 0 or more, or any on
 * a recv). Returns 0 or -1 with err. */
int fs_dag_write(const fs_program *p, const char *path, fs_error *err);
/* The same into an open output, which the caller commits or aborts. */
int fs_dag_write_output(const fs_program *p, fs_output *out, fs_error *err);

#endif
