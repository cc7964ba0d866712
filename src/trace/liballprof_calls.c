/* liballprof_calls.c: the MPI calls the liballprof reader simulates, each
 * with the letters of its recorded arguments in the order of the C
 * prototype (see trace/liballprof.h for the letters). */
#include "trace/liballprof.h"

#include <string.h>

static const call_form forms[] = {
    {"MPI_Init", FS_CALL_INIT, "bb"},
    {"MPI_Init_thread", FS_CALL_INIT, "bbib"},
    {"MPI_Finalize", FS_CALL_FINALIZE, ""},
    {"MPI_Send", FS_CALL_SEND, "bndDtc"},
    {"MPI_Bsend", FS_CALL_BSEND, "bndDtc"},
    {"MPI_Ssend", FS_CALL_SSEND, "bndDtc"},
    {"MPI_Rsend", FS_CALL_RSEND, "bndDtc"},
    {"MPI_Recv", FS_CALL_RECV, "bndSTcb"},
    {"MPI_Isend", FS_CALL_ISEND, "bndDtcr"},
    {"MPI_Ibsend", FS_CALL_IBSEND, "bndDtcr"},
    {"MPI_Issend", FS_CALL_ISSEND, "bndDtcr"},
    {"MPI_Irsend", FS_CALL_IRSEND, "bndDtcr"},
    {"MPI_Irecv", FS_CALL_IRECV, "bndSTcr"},
    {"MPI_Sendrecv", FS_CALL_SENDRECV, "bndDtbndSTcb"},
    {"MPI_Sendrecv_replace", FS_CALL_SENDRECV_REPLACE, "bndDtSTcb"},
    {"MPI_Probe", FS_CALL_PROBE, "STcb"},
    {"MPI_Iprobe", FS_CALL_IPROBE, "STcbb"},
    {"MPI_Wait", FS_CALL_WAIT, "rb"},
    {"MPI_Test", FS_CALL_TEST, "rbb"},
    {"MPI_Waitall", FS_CALL_WAITALL, "qab"},
    {"MPI_Waitany", FS_CALL_WAITANY, "qabb"},
    {"MPI_Waitsome", FS_CALL_WAITSOME, "qabbb"},
    {"MPI_Testall", FS_CALL_TESTALL, "qabb"},
    {"MPI_Testany", FS_CALL_TESTANY, "qabbb"},
    {"MPI_Testsome", FS_CALL_TESTSOME, "qabbb"},
    {"MPI_Barrier", FS_CALL_BARRIER, "c"},
    {"MPI_Bcast", FS_CALL_BCAST, "bndRc"},
    {"MPI_Reduce", FS_CALL_REDUCE, "bbndoRc"},
    {"MPI_Allreduce", FS_CALL_ALLREDUCE, "bbndoc"},
    {"MPI_Gather", FS_CALL_GATHER, "bndbndRc"},
    {"MPI_Scatter", FS_CALL_SCATTER, "bndbndRc"},
    {"MPI_Allgather", FS_CALL_ALLGATHER, "bndbndc"},
    {"MPI_Alltoall", FS_CALL_ALLTOALL, "bndbndc"},
    {"MPI_Reduce_scatter", FS_CALL_REDUCE_SCATTER, "bbwdoc"},
    {"MPI_Reduce_scatter_block", FS_CALL_REDUCE_SCATTER_BLOCK, "bbndoc"},
    {"MPI_Scan", FS_CALL_SCAN, "bbndoc"},
    {"MPI_Exscan", FS_CALL_EXSCAN, "bbndoc"},
    {"MPI_Gatherv", FS_CALL_GATHERV, "bndbvvdRc"},
    {"MPI_Scatterv", FS_CALL_SCATTERV, "bvvdbndRc"},
    {"MPI_Allgatherv", FS_CALL_ALLGATHERV, "bndbvvdc"},
    {"MPI_Alltoallv", FS_CALL_ALLTOALLV, "bvvdbvvdc"},
    {"MPI_Comm_split", FS_CALL_COMM_SPLIT, "ciib"},
    {"MPI_Comm_dup", FS_CALL_COMM_DUP, "cb"},
    {"MPI_Comm_create", FS_CALL_COMM_CREATE, "cbb"},
};

const call_form *fs_liballprof_form(const char *name, size_t length) {
  for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
    if (strlen(forms[i].name) == length && memcmp(forms[i].name, name, length) == 0)
      return &forms[i];
  return NULL;
}
