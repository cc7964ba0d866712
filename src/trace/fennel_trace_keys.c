/* fennel_trace_keys.c: the tables of fennel_trace_keys.h. */
#include "trace/fennel_trace_keys.h"

#define BYTES_TEXT "a byte count from 0 to " FS_TRACE_SIZE_LIMIT_TEXT " (2^62)"

const struct key_rule fennel_key_rules[KEYS] = {
  [K_PEER] = {"peer", V_INTEGER, -3, INT32_MAX, "a rank from 0 to 2147483647, -1 (any) or -3 (MPI_PROC_NULL)"},
  [K_TAG] = {"tag", V_INTEGER, -1, INT32_MAX, "a tag from 0 to 2147483647 or -1 (any)"},
  [K_COMM] = {"comm", V_INTEGER, 0, INT64_MAX, "a communicator id from 0 to 9223372036854775807"},
  [K_BYTES] = {"bytes", V_INTEGER, 0, FS_TRACE_SIZE_LIMIT, BYTES_TEXT},
  [K_RBYTES] = {"rbytes", V_INTEGER, 0, FS_TRACE_SIZE_LIMIT, BYTES_TEXT},
  [K_RPEER] = {"rpeer", V_INTEGER, -3, INT32_MAX, "a rank from 0 to 2147483647, -1 (any) or -3 (MPI_PROC_NULL)"},
  [K_RTAG] = {"rtag", V_INTEGER, -1, INT32_MAX, "a tag from 0 to 2147483647 or -1 (any)"},
  [K_SOURCE] = {"source", V_INTEGER, -3, INT32_MAX, "a rank from 0 to 2147483647 or -3 (MPI_PROC_NULL)"},
  [K_STAG] = {"stag", V_INTEGER, -1, INT32_MAX, "a tag from 0 to 2147483647 or -1 (MPI_PROC_NULL's)"},
  [K_ROOT] = {"root", V_INTEGER, 0, INT32_MAX, "a rank from 0 to 2147483647"},
  [K_REQ] = {"req", V_INTEGER, -2, INT32_MAX, "a request id from 1 to 2147483647, -1 (null) or -2 (not recorded)"},
  [K_REQS] = {"reqs", V_LIST, -2, INT32_MAX, "a request id from 1 to 2147483647, -1 (null) or -2 (not recorded)"},
  [K_FLAG] = {"flag", V_INTEGER, 0, 1, "0 or 1"},
  [K_INDEX] = {"index", V_INTEGER, -1, INT32_MAX, "an index from 0 to 2147483647 or -1 (none)"},
  [K_DONE] = {"done", V_LIST, 1, INT32_MAX, "a request id from 1 to 2147483647"},
  [K_NEW] = {"new", V_INTEGER, 2, INT64_MAX, "a communicator id from 2 to 9223372036854775807"},
  [K_COUNTS] = {"counts", V_LIST, 0, FS_TRACE_SIZE_LIMIT, BYTES_TEXT},
  [K_RCOUNTS] = {"rcounts", V_LIST, 0, FS_TRACE_SIZE_LIMIT, BYTES_TEXT},
  [K_NAME] = {"name", V_NAME, 0, 0, "an MPI function name (a letter or '_', then letters, digits, '_')"},
  [K_STATUS] = {"status", V_STATUS, 1, INT32_MAX, "a request id from 1 to 2147483647"},
};


#define P2P (BIT(K_PEER) | BIT(K_TAG) | BIT(K_BYTES))
#define SIDES (BIT(K_BYTES) | BIT(K_RBYTES))
#define VECTORS (BIT(K_COUNTS) | BIT(K_RCOUNTS))
#define COLLECTIVE (BIT(K_COMM) | BIT(K_REQ)) /* req=: a nonblocking collective's request */

const struct kind_rule fennel_kind_rules[FS_CALL_KINDS] = {
  [FS_CALL_OTHER] = {BIT(K_NAME), 0},
  [FS_CALL_SEND] = {P2P, BIT(K_COMM)}, [FS_CALL_SSEND] = {P2P, BIT(K_COMM)},
  [FS_CALL_BSEND] = {P2P, BIT(K_COMM)}, [FS_CALL_RSEND] = {P2P, BIT(K_COMM)},
  [FS_CALL_RECV] = {P2P, BIT(K_COMM) | STATUS},
  [FS_CALL_ISEND] = {P2P | BIT(K_REQ), BIT(K_COMM)}, [FS_CALL_ISSEND] = {P2P | BIT(K_REQ), BIT(K_COMM)},
  [FS_CALL_IBSEND] = {P2P | BIT(K_REQ), BIT(K_COMM)}, [FS_CALL_IRSEND] = {P2P | BIT(K_REQ), BIT(K_COMM)},
  [FS_CALL_IRECV] = {P2P | BIT(K_REQ), BIT(K_COMM)},
  [FS_CALL_SENDRECV] = {P2P | BIT(K_RPEER) | BIT(K_RTAG) | BIT(K_RBYTES), BIT(K_COMM) | STATUS},
  [FS_CALL_SENDRECV_REPLACE] = {P2P | BIT(K_RPEER) | BIT(K_RTAG) | BIT(K_RBYTES), BIT(K_COMM) | STATUS},
  [FS_CALL_PROBE] = {BIT(K_PEER) | BIT(K_TAG), BIT(K_COMM) | STATUS},
  [FS_CALL_IPROBE] = {BIT(K_PEER) | BIT(K_TAG) | BIT(K_FLAG), BIT(K_COMM) | STATUS},
  [FS_CALL_WAIT] = {BIT(K_REQ), BIT(K_STATUS)},
  [FS_CALL_WAITALL] = {BIT(K_REQS), BIT(K_STATUS)},
  [FS_CALL_WAITANY] = {BIT(K_REQS) | BIT(K_INDEX), BIT(K_STATUS)},
  [FS_CALL_WAITSOME] = {BIT(K_REQS) | BIT(K_DONE), BIT(K_STATUS)},
  [FS_CALL_TEST] = {BIT(K_REQ) | BIT(K_FLAG), BIT(K_STATUS)},
  [FS_CALL_TESTALL] = {BIT(K_REQS) | BIT(K_FLAG), BIT(K_STATUS)},
  [FS_CALL_TESTANY] = {BIT(K_REQS) | BIT(K_FLAG) | BIT(K_INDEX), BIT(K_STATUS)},
  [FS_CALL_TESTSOME] = {BIT(K_REQS) | BIT(K_DONE), BIT(K_STATUS)},
  [FS_CALL_BARRIER] = {0, COLLECTIVE},
  [FS_CALL_BCAST] = {BIT(K_ROOT) | SIDES, COLLECTIVE},
  [FS_CALL_REDUCE] = {BIT(K_ROOT) | SIDES, COLLECTIVE},
  [FS_CALL_ALLREDUCE] = {SIDES, COLLECTIVE},
  [FS_CALL_GATHER] = {BIT(K_ROOT) | SIDES, COLLECTIVE},
  [FS_CALL_SCATTER] = {BIT(K_ROOT) | SIDES, COLLECTIVE},
  [FS_CALL_ALLGATHER] = {SIDES, COLLECTIVE}, [FS_CALL_ALLTOALL] = {SIDES, COLLECTIVE},
  [FS_CALL_REDUCE_SCATTER] = {SIDES | BIT(K_RCOUNTS), COLLECTIVE},
  [FS_CALL_REDUCE_SCATTER_BLOCK] = {SIDES, COLLECTIVE},
  [FS_CALL_SCAN] = {SIDES, COLLECTIVE}, [FS_CALL_EXSCAN] = {SIDES, COLLECTIVE},
  [FS_CALL_GATHERV] = {BIT(K_ROOT) | VECTORS, COLLECTIVE},
  [FS_CALL_SCATTERV] = {BIT(K_ROOT) | VECTORS, COLLECTIVE},
  [FS_CALL_ALLGATHERV] = {VECTORS, COLLECTIVE}, [FS_CALL_ALLTOALLV] = {VECTORS, COLLECTIVE},
  [FS_CALL_COMM_SPLIT] = {0, BIT(K_COMM) | BIT(K_NEW)},
  [FS_CALL_COMM_DUP] = {0, BIT(K_COMM) | BIT(K_NEW)},
  [FS_CALL_COMM_CREATE] = {0, BIT(K_COMM) | BIT(K_NEW)},
  [FS_CALL_COMM_FREE] = {0, BIT(K_COMM)},
};
