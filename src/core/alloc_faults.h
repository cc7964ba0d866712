/* alloc_faults.h: the out-of-memory test build (meson -Dalloc_faults=true).
 * Force-included (-include) into every source of the fennel library and the
 * fennelsim executable, never into tests or tools; the call sites are left
 * as they are. It redirects malloc, calloc, realloc and strdup to counting
 * wrappers (core/alloc_faults.c) that fail the N-th call when
 * FENNELSIM_FAIL_ALLOC=N, and print the number of calls at exit when
 * FENNELSIM_COUNT_ALLOC=1 (docs/INTERNALS.md, "Out-of-memory testing").
 * The system headers come first so their declarations keep the real names. */
#ifndef FS_ALLOC_FAULTS_H
#define FS_ALLOC_FAULTS_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void *fs_alloc_faults_malloc(size_t size);
void *fs_alloc_faults_calloc(size_t count, size_t size);
void *fs_alloc_faults_realloc(void *block, size_t size);
char *fs_alloc_faults_strdup(const char *text);

#define malloc(size) fs_alloc_faults_malloc(size)
#define calloc(count, size) fs_alloc_faults_calloc(count, size)
#define realloc(block, size) fs_alloc_faults_realloc(block, size)
#define strdup(text) fs_alloc_faults_strdup(text)

#endif
