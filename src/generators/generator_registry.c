/* generator_registry.c: the table of generators behind `fennelsim gen`,
 * looked up by name. */
#include <string.h>

#include "generators.h"

static const fs_generator generators[] = {
    {"pingpong", "R round trips of S bytes between ranks 0 and 1 (--rounds R)",
     fs_generate_pingpong},
    {"multicast", "rank 0 puts S bytes to each of ranks 1..N-1, in order", fs_generate_multicast},
    {"allreduce-rd",
     "allreduce by recursive doubling as in MPICH (collapse/expand off powers of 2)",
     fs_generate_allreduce_rd},
    {"allreduce-rm", "allreduce by recursive multiplying (--factors k1,k2,... with product N)",
     fs_generate_allreduce_rm},
    {"bcast-binomial", "two-sided binomial-tree broadcast from rank 0 (schedgen binomialtreebcast)",
     fs_generate_bcast_binomial},
    {"reduce-binomial", "two-sided binomial-tree reduce to rank 0 (schedgen binomialtreereduce)",
     fs_generate_reduce_binomial},
    {"allreduce-recdoub",
     "two-sided recursive halving then doubling, N a power of 2 (schedgen allreduce_recdoub)",
     fs_generate_allreduce_recdoub},
    {"barrier-dissemination",
     "two-sided dissemination barrier, S-byte messages (schedgen dissemination)",
     fs_generate_barrier_dissemination},
    {"allgather-ring", "two-sided ring allgather as in MPICH: N-1 sendrecv steps of S bytes",
     fs_generate_allgather_ring},
    {"allgather-rd", "two-sided recursive-doubling allgather as in MPICH, N a power of 2",
     fs_generate_allgather_rd},
    {"bcast-linear", "two-sided linear broadcast: rank 0 sends S bytes to 1..N-1 in order",
     fs_generate_bcast_linear},
    {"scatter-binomial", "two-sided binomial-tree scatter from rank 0 as in MPICH, S-byte blocks",
     fs_generate_scatter_binomial},
    {"gather-binomial", "two-sided binomial-tree gather to rank 0 as in MPICH, S-byte blocks",
     fs_generate_gather_binomial},
    {"alltoall-pairwise", "two-sided pairwise alltoall: N-1 sendrecv steps of S bytes (shift)",
     fs_generate_alltoall_pairwise},
};

const fs_generator *fs_generator_list(int *count) {
  if (count) *count = (int)(sizeof generators / sizeof generators[0]);
  return generators;
}

const fs_generator *fs_generator_find(const char *name) {
  int count;
  const fs_generator *all = fs_generator_list(&count);
  for (int i = 0; i < count; i++)
    if (strcmp(all[i].name, name) == 0) return &all[i];
  return NULL;
}
