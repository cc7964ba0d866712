/* alloc_faults.c: the counting allocation wrappers of the out-of-memory
 * test build (core/alloc_faults.h; only compiled with -Dalloc_faults=true).
 * FENNELSIM_FAIL_ALLOC=N makes the N-th call (from 1, counted over the
 * whole process and all threads) return NULL with errno ENOMEM, as a full
 * machine would; every other call goes to the C library's function, which
 * AddressSanitizer intercepts as usual. FENNELSIM_COUNT_ALLOC=1 prints
 * "fennelsim: alloc_faults: N allocation calls" on stderr at exit, so a
 * test knows how far to sweep; FENNELSIM_COUNT_ALLOC=sites also prints, for
 * each of the first FS_ALLOC_SITES calls, "site K OFFSET": the call site's
 * address as an offset from this file's code (the same in every run of one
 * binary, whatever ASLR does), so a test can fail each site a bounded
 * number of times instead of every call; with FENNELSIM_FAIL_ALLOC_STACK=1 the failed
 * call prints its stack (under a sanitizer only: its runtime prints it). The counter and the two settings are the one
 * place the project keeps process-wide state: the call sites have no
 * context to pass. Allocations inside zlib, libxml2 and libotf2 are not
 * counted (they are not compiled with the header). */
#include "core/alloc_faults.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#undef malloc
#undef calloc
#undef realloc
#undef strdup

enum { FS_ALLOC_SITES = 1 << 16 }; /* calls whose site is recorded (256 KiB, static) */

static atomic_uint_fast64_t calls;
static uint64_t fail_at; /* 0: never */
static int print_stack, record_sites;
static int32_t sites[FS_ALLOC_SITES]; /* the offsets, in call order */

/* The sanitizers' runtime, when linked (a weak reference: NULL otherwise). */
void __sanitizer_print_stack_trace(void) __attribute__((weak));

static void print_count(void) {
  uint64_t n = atomic_load(&calls);
  for (uint64_t k = 0; record_sites && k < n && k < FS_ALLOC_SITES; k++)
    fprintf(stderr, "fennelsim: alloc_faults: site %llu %ld\n", (unsigned long long)k + 1,
            (long)sites[k]);
  fprintf(stderr, "fennelsim: alloc_faults: %llu allocation calls\n", (unsigned long long)n);
}

/* Reads the settings before main, while the process has one thread. */
__attribute__((constructor)) static void read_settings(void) {
  const char *n = getenv("FENNELSIM_FAIL_ALLOC"), *count = getenv("FENNELSIM_COUNT_ALLOC");
  const char *stack = getenv("FENNELSIM_FAIL_ALLOC_STACK");
  if (n) fail_at = strtoull(n, NULL, 10);
  print_stack = stack && strcmp(stack, "1") == 0;
  record_sites = count && strcmp(count, "sites") == 0;
  if (count && (strcmp(count, "1") == 0 || record_sites)) atexit(print_count);
}

/* Counts a call from `site` (the wrapper's return address); 1 when this
 * one is to fail. */
static int fails(void *site) {
  uint64_t k = atomic_fetch_add(&calls, 1) + 1;
  if (record_sites && k <= FS_ALLOC_SITES)
    sites[k - 1] = (int32_t)((intptr_t)site - (intptr_t)read_settings);
  if (k != fail_at) return 0;
  if (print_stack && __sanitizer_print_stack_trace) __sanitizer_print_stack_trace();
  errno = ENOMEM;
  return 1;
}

#define SITE __builtin_return_address(0)

void *fs_alloc_faults_malloc(size_t size) { return fails(SITE) ? NULL : malloc(size); }

void *fs_alloc_faults_calloc(size_t count, size_t size) {
  return fails(SITE) ? NULL : calloc(count, size);
}

void *fs_alloc_faults_realloc(void *block, size_t size) {
  return fails(SITE) ? NULL : realloc(block, size);
}

char *fs_alloc_faults_strdup(const char *text) { return fails(SITE) ? NULL : strdup(text); }
