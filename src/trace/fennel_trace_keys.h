/* fennel_trace_keys.h: the keys of fennelsim's trace format, for the
 * reader's files only: what each key's value may be and which keys each
 * call kind must and may have (docs/TRACES.md). */
#ifndef FS_FENNEL_TRACE_KEYS_H
#define FS_FENNEL_TRACE_KEYS_H

#include <stdint.h>

#include "trace/trace.h"

/* The keys, in the order messages list them. */
enum key {
  K_PEER,
  K_TAG,
  K_COMM,
  K_BYTES,
  K_RBYTES,
  K_RPEER,
  K_RTAG,
  K_SOURCE,
  K_STAG,
  K_ROOT,
  K_REQ,
  K_REQS,
  K_FLAG,
  K_INDEX,
  K_DONE,
  K_NEW,
  K_COUNTS,
  K_RCOUNTS,
  K_NAME,
  K_STATUS,
  KEYS
};
#define BIT(k) (1u << (k))

enum value_type { V_INTEGER, V_LIST, V_NAME, V_STATUS };

/* What a key's value may be, before the call's communicator is known. */
struct key_rule {
  const char *name;
  enum value_type type;
  int64_t min, max;
  const char *what;
};

/* The keys each kind must have and may have (besides those it must). */
struct kind_rule {
  uint32_t required, optional;
};

#define STATUS (BIT(K_SOURCE) | BIT(K_STAG)) /* a status's keys */

extern const struct key_rule fennel_key_rules[KEYS];
extern const struct kind_rule fennel_kind_rules[FS_CALL_KINDS];

#endif
