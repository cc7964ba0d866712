/* generator_registry.c: the table of generators behind `fennelsim gen`,
 * looked up by name, listed by collective (`gen --list`). */
#include <string.h>

#include "generators/generators.h"
#include "generators/mpi_selection.h"
#include "generators/nccl_selection.h"

#define NONE FS_COLLECTIVE_NONE
#define BARRIER FS_COLLECTIVE_BARRIER
#define BCAST FS_COLLECTIVE_BCAST
#define REDUCE FS_COLLECTIVE_REDUCE
#define ALLREDUCE FS_COLLECTIVE_ALLREDUCE
#define SCATTER FS_COLLECTIVE_SCATTER
#define GATHER FS_COLLECTIVE_GATHER
#define ALLGATHER FS_COLLECTIVE_ALLGATHER
#define ALLTOALL FS_COLLECTIVE_ALLTOALL
#define REDUCE_SCATTER FS_COLLECTIVE_REDUCE_SCATTER
#define NCCL FS_GEN_NCCL
#define TWO FS_GEN_TWO_SIDED
#define BAD FS_GEN_NOT_CORRECT
#define GPU FS_GEN_GPU

/* name, summary, generator, options read, collective, traits */
static const fs_generator generators[] = {
    {"pingpong", "R round trips of S bytes between ranks 0 and 1 (--rounds R)",
     fs_generate_pingpong, FS_GEN_ROUNDS, NONE, 0},
    {"multicast", "rank 0 puts S bytes to each of ranks 1..N-1, in order", fs_generate_multicast, 0,
     BCAST, 0},
    {"msccl",
     "an MSCCL XML algorithm (--schedule FILE.xml): GPU g is rank g, each thread block a CPU",
     fs_generate_msccl, FS_GEN_SCHEDULE | FS_GEN_SEGMENT | FS_GEN_REDUCE_TIME, NONE,
     FS_GEN_FILE | GPU},
    {"bcast-binomial",
     "two-sided binomial-tree broadcast from --root (schedgen binomialtreebcast, relative ranks)",
     fs_generate_bcast_binomial, FS_GEN_ROOT, BCAST, TWO},
    {"bcast-linear",
     "two-sided linear broadcast: --root sends S bytes to every other rank in rank order",
     fs_generate_bcast_linear, FS_GEN_ROOT, BCAST, TWO},
    {"bcast-binary",
     "two-sided binary-tree broadcast from --root (heap order: v sends to 2v+1, 2v+2)",
     fs_generate_bcast_binary, FS_GEN_ROOT, BCAST, TWO},
    {"bcast-chain",
     "two-sided pipelined chain broadcast from --root in --segment pieces (default 8 KiB; Open "
     "MPI)",
     fs_generate_bcast_chain, FS_GEN_ROOT | FS_GEN_SEGMENT, BCAST, TWO},
    {"bcast-scatter-allgather",
     "two-sided van de Geijn broadcast: binomial scatter, ring allgather (MPICH)",
     fs_generate_bcast_scatter_allgather, FS_GEN_ROOT, BCAST, TWO},
    {"bcast-klevel",
     "kappa-level broadcast over the platform's levels, then node-local (SMP-clusters thesis)",
     fs_generate_bcast_klevel, FS_GEN_ROOT | FS_GEN_PLATFORM, BCAST, TWO},
    {"bcast-smp",
     "SMP-aware broadcast: binomial among node leaders, then binomial within each node",
     fs_generate_bcast_smp, FS_GEN_ROOT | FS_GEN_PLATFORM, BCAST, TWO},
    {"bcast-knomial",
     "two-sided k-nomial broadcast from --root, radix --ways (default 4; Open MPI knomial)",
     fs_generate_bcast_knomial, FS_GEN_ROOT | FS_GEN_WAYS, BCAST, TWO},
    {"bcast-split-binary",
     "two-sided split binary tree: a half down each subtree, then pairs swap halves (Open MPI)",
     fs_generate_bcast_split_binary, FS_GEN_ROOT, BCAST, TWO},
    {"bcast-scatter-rd-allgather",
     "two-sided binomial scatter, then recursive-doubling allgather, any N (MPICH, Open MPI)",
     fs_generate_bcast_scatter_rd_allgather, FS_GEN_ROOT, BCAST, TWO},
    /* NCCL 2.30.7 (nccl_ring.c, nccl_tree.c): per --channels channel and --chunk chunk */
    {"bcast-nccl-ring",
     "NCCL ring broadcast from --root: chunks pipelined along the ring (Simple 512 KiB)",
     fs_generate_bcast_nccl_ring, NCCL | FS_GEN_FIFO | FS_GEN_ROOT, BCAST, TWO | GPU},
    {"scatter-binomial", "two-sided binomial-tree scatter from --root as in MPICH, S-byte blocks",
     fs_generate_scatter_binomial, FS_GEN_ROOT, SCATTER, TWO},
    {"scatter-klevel", "kappa-level personalized broadcast (scatter) over the platform's levels",
     fs_generate_scatter_klevel, FS_GEN_ROOT | FS_GEN_PLATFORM, SCATTER, TWO},
    {"scatter-linear", "two-sided linear scatter: --root sends block r to each rank r",
     fs_generate_scatter_linear, FS_GEN_ROOT, SCATTER, TWO},
    {"scatter-linear-nb",
     "two-sided linear scatter, Open MPI's linear_nb: --root isends every block, then waits",
     fs_generate_scatter_linear_nb, FS_GEN_ROOT, SCATTER, TWO},
    {"gather-binomial", "two-sided binomial-tree gather to --root as in MPICH, S-byte blocks",
     fs_generate_gather_binomial, FS_GEN_ROOT, GATHER, TWO},
    {"gather-linear", "two-sided linear gather: each rank sends its block to --root",
     fs_generate_gather_linear, FS_GEN_ROOT, GATHER, TWO},
    {"gather-linear-sync",
     "two-sided linear gather, Open MPI's linear_sync: --root sends each rank a 0-byte go, then "
     "receives its block",
     fs_generate_gather_linear_sync, FS_GEN_ROOT, GATHER, TWO},
    {"reduce-binomial",
     "two-sided binomial-tree reduce to --root (schedgen binomialtreereduce, relative ranks)",
     fs_generate_reduce_binomial, FS_GEN_ROOT, REDUCE, TWO},
    {"reduce-linear",
     "two-sided linear reduce: every rank sends S bytes to --root, which reduces in order",
     fs_generate_reduce_linear, FS_GEN_ROOT | FS_GEN_REDUCE_TIME, REDUCE, TWO},
    {"reduce-rabenseifner",
     "two-sided reduce-scatter by recursive halving, then binomial gather to --root",
     fs_generate_reduce_rabenseifner, FS_GEN_ROOT | FS_GEN_REDUCE_TIME, REDUCE, TWO},
    {"reduce-smp", "SMP-aware reduce: binomial within each node, then binomial among node leaders",
     fs_generate_reduce_smp, FS_GEN_ROOT | FS_GEN_PLATFORM | FS_GEN_REDUCE_TIME, REDUCE, TWO},
    {"reduce-chain",
     "two-sided chain reduce to --root in --segment pieces (0: unsegmented; Open MPI chain)",
     fs_generate_reduce_chain, FS_GEN_ROOT | FS_GEN_SEGMENT | FS_GEN_REDUCE_TIME, REDUCE, TWO},
    {"reduce-binary", "two-sided binary-tree reduce to --root (Open MPI topo tree, unsegmented)",
     fs_generate_reduce_binary, FS_GEN_ROOT | FS_GEN_REDUCE_TIME, REDUCE, TWO},
    {"reduce-in-order-binary",
     "two-sided in-order binary-tree reduce to rank N-1, then to --root (Open MPI)",
     fs_generate_reduce_in_order_binary, FS_GEN_ROOT | FS_GEN_REDUCE_TIME, REDUCE, TWO},
    /* NCCL 2.30.7 (nccl_ring.c, nccl_tree.c): per --channels channel and --chunk chunk */
    {"reduce-nccl-ring",
     "NCCL ring reduce to --root: chunks pipelined from the rank after the root, reduced on the "
     "way",
     fs_generate_reduce_nccl_ring, NCCL | FS_GEN_FIFO | FS_GEN_ROOT | FS_GEN_REDUCE_TIME, REDUCE,
     TWO | GPU},
    {"allreduce-rd",
     "allreduce by recursive doubling as in MPICH (collapse/expand off powers of 2)",
     fs_generate_allreduce_rd, FS_GEN_REDUCE_TIME, ALLREDUCE, 0},
    {"allreduce-rm",
     "allreduce by recursive multiplying (--schedule a4,a2 | m1g2a3,n1g3a2 | c6m2,a2,a2,e6m2 | "
     "auto[-unsorted][:C], or --factors k1,k2,...)",
     fs_generate_allreduce_rm, FS_GEN_FACTORS | FS_GEN_SCHEDULE | FS_GEN_REDUCE_TIME, ALLREDUCE, 0},
    {"allreduce-recdoub",
     "two-sided recursive halving then doubling, N a power of 2 (schedgen allreduce_recdoub)",
     fs_generate_allreduce_recdoub, 0, ALLREDUCE, TWO | BAD},
    {"allreduce-ring",
     "two-sided ring allreduce: reduce-scatter ring then allgather ring, N blocks",
     fs_generate_allreduce_ring, FS_GEN_REDUCE_TIME, ALLREDUCE, TWO},
    {"allreduce-rabenseifner",
     "two-sided Rabenseifner allreduce: recursive halving then recursive doubling",
     fs_generate_allreduce_rabenseifner, FS_GEN_REDUCE_TIME, ALLREDUCE, TWO},
    {"allreduce-fan",
     "two-sided fan-in/fan-out: binomial reduce to rank 0, then binomial broadcast",
     fs_generate_allreduce_fan, FS_GEN_REDUCE_TIME, ALLREDUCE, TWO},
    {"allreduce-dissemination", "two-sided f-way dissemination allreduce (--ways f, default 1)",
     fs_generate_allreduce_dissemination, FS_GEN_WAYS | FS_GEN_REDUCE_TIME, ALLREDUCE, TWO},
    {"allreduce-elimination", "two-sided 3-2/2-1 elimination allreduce (Rabenseifner-Traff), any N",
     fs_generate_allreduce_elimination, FS_GEN_REDUCE_TIME, ALLREDUCE, TWO},
    {"allreduce-smp",
     "SMP-aware allreduce: node reduce to a leader, recursive doubling among leaders, node bcast",
     fs_generate_allreduce_smp, FS_GEN_PLATFORM | FS_GEN_REDUCE_TIME, ALLREDUCE, TWO},
    {"allreduce-linear",
     "two-sided linear reduce to rank 0, then linear broadcast (Open MPI basic_linear)",
     fs_generate_allreduce_linear, FS_GEN_REDUCE_TIME, ALLREDUCE, TWO},
    {"allreduce-reduce-bcast",
     "two-sided reduce to rank 0, then broadcast (--schedule REDUCE+BCAST, default "
     "reduce-binomial+bcast-binomial; Open MPI nonoverlapping)",
     fs_generate_allreduce_reduce_bcast,
     FS_GEN_SCHEDULE | FS_GEN_SEGMENT | FS_GEN_WAYS | FS_GEN_PLATFORM | FS_GEN_REDUCE_TIME,
     ALLREDUCE, TWO},
    /* NCCL 2.30.7 (nccl_ring.c, nccl_tree.c): per --channels channel and --chunk chunk */
    {"allreduce-nccl-ring",
     "NCCL ring allreduce per channel and chunk: 2(N-1) steps a loop of N chunks (--channels, "
     "--chunk, --protocol)",
     fs_generate_allreduce_nccl_ring, NCCL | FS_GEN_SLICES | FS_GEN_FIFO | FS_GEN_REDUCE_TIME,
     ALLREDUCE, TWO | GPU},
    {"allreduce-nccl-tree",
     "NCCL tree allreduce: double binary tree across nodes, chain within a node, reduce up then "
     "broadcast down per chunk",
     fs_generate_allreduce_nccl_tree, NCCL | FS_GEN_FIFO | FS_GEN_PLATFORM | FS_GEN_REDUCE_TIME,
     ALLREDUCE, TWO | GPU},
    /* NCCL's NVLS (nccl_nvls.c): the node's NVSwitch is rank N, it reduces and multicasts */
    {"allreduce-nccl-nvls",
     "NCCL NVLS allreduce in one node: the NVSwitch (an extra rank N) reduces each loop's N "
     "chunks, returns chunk h to GPU h, which stores it back for the switch to multicast",
     fs_generate_allreduce_nccl_nvls, NCCL | FS_GEN_PLATFORM | FS_GEN_REDUCE_TIME, ALLREDUCE,
     TWO | GPU},
    /* NCCL's NVLSTree (nccl_nvlstree.c): NVLS in each node, a tree between nodes */
    {"allreduce-nccl-nvlstree",
     "NCCL NVLSTree allreduce: each node's NVSwitch (ranks K.. after the K GPUs) reduces the "
     "node's chunks, head h's chunk goes up and down NCCL's tree of nodes, the switch multicasts",
     fs_generate_allreduce_nccl_nvlstree, NCCL | FS_GEN_PLATFORM | FS_GEN_REDUCE_TIME, ALLREDUCE,
     TWO | GPU},
    /* NCCL's CollNet (nccl_collnet.c): rail h's in-network reducer is rank NG+h */
    {"allreduce-nccl-collnet-direct",
     "NCCL CollNetDirect allreduce: each GPU scatters to its node's heads, head h sends its sum "
     "to rail h's in-network reducer (rank NG+h) and broadcasts the result in the node",
     fs_generate_allreduce_nccl_collnet_direct, NCCL | FS_GEN_PLATFORM | FS_GEN_REDUCE_TIME,
     ALLREDUCE, TWO | GPU},
    {"allreduce-nccl-collnet-chain",
     "NCCL CollNetChain allreduce: a chain through each node's GPUs up to an in-network reducer "
     "(rank NG + c mod G) and back down, per chunk",
     fs_generate_allreduce_nccl_collnet_chain, NCCL | FS_GEN_PLATFORM | FS_GEN_REDUCE_TIME,
     ALLREDUCE, TWO | GPU},
    {"allgather-ring", "two-sided ring allgather as in MPICH: N-1 sendrecv steps of S bytes",
     fs_generate_allgather_ring, 0, ALLGATHER, TWO},
    {"allgather-rd", "two-sided recursive-doubling allgather as in MPICH, N a power of 2",
     fs_generate_allgather_rd, 0, ALLGATHER, TWO},
    {"allgather-bruck", "two-sided Bruck allgather: ceil(log2 N) steps, then a local rotation",
     fs_generate_allgather_bruck, 0, ALLGATHER, TWO},
    {"allgather-neighbor", "two-sided neighbor-exchange allgather, N even: N/2 steps",
     fs_generate_allgather_neighbor, 0, ALLGATHER, TWO},
    /* NCCL 2.30.7 (nccl_ring.c, nccl_tree.c): per --channels channel and --chunk chunk */
    {"allgather-nccl-ring", "NCCL ring allgather per channel and chunk: N-1 steps a piece",
     fs_generate_allgather_nccl_ring, NCCL | FS_GEN_SLICES | FS_GEN_FIFO, ALLGATHER, TWO | GPU},
    /* NCCL's PAT (nccl_pat.c): Simple only, binomial trees of all ranks aggregated */
    {"allgather-nccl-pat", "NCCL PAT allgather per channel and chunk: aggregated binomial trees",
     fs_generate_allgather_nccl_pat, NCCL | FS_GEN_PLATFORM, ALLGATHER, TWO | GPU},
    {"reduce-scatter-nccl-ring",
     "NCCL ring reduce-scatter per channel and chunk: N-1 steps a piece, a reduce after each recv",
     fs_generate_reduce_scatter_nccl_ring, NCCL | FS_GEN_SLICES | FS_GEN_FIFO | FS_GEN_REDUCE_TIME,
     REDUCE_SCATTER, TWO | GPU},
    {"reduce-scatter-nccl-pat",
     "NCCL PAT reduce-scatter per channel and chunk: aggregated binomial trees, a reduce a recv",
     fs_generate_reduce_scatter_nccl_pat, NCCL | FS_GEN_PLATFORM | FS_GEN_REDUCE_TIME,
     REDUCE_SCATTER, TWO | GPU},
    {"alltoall-pairwise", "two-sided pairwise alltoall: N-1 sendrecv steps of S bytes (shift)",
     fs_generate_alltoall_pairwise, 0, ALLTOALL, TWO},
    {"alltoall-linear", "two-sided linear alltoall: every rank posts N-1 receives and N-1 sends",
     fs_generate_alltoall_linear, 0, ALLTOALL, TWO},
    {"alltoall-bruck",
     "two-sided Bruck alltoall: ceil(log2 N) steps of the blocks whose index has bit k",
     fs_generate_alltoall_bruck, 0, ALLTOALL, TWO},
    {"alltoall-scattered",
     "two-sided scattered alltoall as in MPICH: linear in windows of --ways peers (default 32), "
     "a waitall per window",
     fs_generate_alltoall_scattered, FS_GEN_WAYS, ALLTOALL, TWO},
    {"alltoall-pairwise-xor",
     "two-sided pairwise alltoall as in MPICH for N a power of 2: step i exchanges with r XOR i",
     fs_generate_alltoall_pairwise_xor, 0, ALLTOALL, TWO},
    {"barrier-dissemination",
     "two-sided dissemination barrier as MPICH: round k sendrecv with r+2^k, r-2^k",
     fs_generate_barrier_dissemination, 0, BARRIER, TWO},
    {"barrier-dissemination-schedgen",
     "schedgen's dissemination pattern op for op (LogGOPSim reference; not a correct barrier)",
     fs_generate_barrier_dissemination_schedgen, 0, BARRIER, TWO | BAD},
    {"barrier-linear", "two-sided linear barrier: all send to rank 0, which answers all",
     fs_generate_barrier_linear, 0, BARRIER, TWO},
    {"barrier-nway",
     "two-sided n-way dissemination barrier (--ways n messages per round, default 2; 1 = "
     "barrier-dissemination)",
     fs_generate_barrier_nway, FS_GEN_WAYS, BARRIER, TWO},
    {"barrier-rd",
     "two-sided recursive-doubling barrier as in Open MPI: XOR exchanges among the first 2^k "
     "ranks, the others fold in and out",
     fs_generate_barrier_rd, 0, BARRIER, TWO},
    {"barrier-double-ring", "two-sided double-ring barrier as in Open MPI: a token twice around",
     fs_generate_barrier_double_ring, 0, BARRIER, TWO},
    {"barrier-tree",
     "two-sided tree barrier as in Open MPI: hypercube binomial fan-in to 0, then fan-out",
     fs_generate_barrier_tree, 0, BARRIER, TWO},
/* MPI libraries' selections (mpi_selection.h): each generates the algorithm
 * its library picks for --ranks and --size */
#define MPICH_SAYS "what MPICH 4.1-5.0.1 runs (flat MPIR rules, one rank per node)"
#define OMPI_SAYS "what Open MPI 4.1/5.0 coll/tuned runs (fixed rules, commutative op)"
#define SELECTOR_PAIR(name, coll, COLL, options)                                             \
  {name "-mpich", MPICH_SAYS, fs_generate_##coll##_mpich, options, COLL, FS_GEN_SELECTOR}, { \
    name "-ompi", OMPI_SAYS, fs_generate_##coll##_ompi, options, COLL, FS_GEN_SELECTOR       \
  }
    SELECTOR_PAIR("barrier", barrier, BARRIER, 0),
    SELECTOR_PAIR("bcast", bcast, BCAST, FS_GEN_ROOT),
    SELECTOR_PAIR("reduce", reduce, REDUCE, FS_GEN_ROOT | FS_GEN_REDUCE_TIME),
    SELECTOR_PAIR("allreduce", allreduce, ALLREDUCE, FS_GEN_REDUCE_TIME),
    SELECTOR_PAIR("gather", gather, GATHER, FS_GEN_ROOT),
    SELECTOR_PAIR("scatter", scatter, SCATTER, FS_GEN_ROOT),
    SELECTOR_PAIR("allgather", allgather, ALLGATHER, 0),
    SELECTOR_PAIR("alltoall", alltoall, ALLTOALL, 0),
/* NCCL's own choice (nccl_selection.h): the picked NCCL generator with the
 * picked protocol and channels, for --ranks, --size and the platform's nodes */
#define NCCL_SAYS                                                                            \
  "what NCCL 2.30.7 runs by its tuning model (--gpu, default Hopper): algorithm, protocol, " \
  "channels"
#define NCCL_SELECTOR(name, coll, COLL, options)                                     \
  {                                                                                  \
    name "-nccl", NCCL_SAYS, fs_generate_##coll##_nccl,                              \
        options | FS_GEN_PLATFORM | FS_GEN_NCCL_MACHINE, COLL, FS_GEN_SELECTOR | GPU \
  }
    NCCL_SELECTOR("allreduce", allreduce, ALLREDUCE, FS_GEN_REDUCE_TIME),
    NCCL_SELECTOR("allgather", allgather, ALLGATHER, 0),
    NCCL_SELECTOR("reduce-scatter", reduce_scatter, REDUCE_SCATTER, FS_GEN_REDUCE_TIME),
    NCCL_SELECTOR("bcast", bcast, BCAST, FS_GEN_ROOT),
    NCCL_SELECTOR("reduce", reduce, REDUCE, FS_GEN_ROOT | FS_GEN_REDUCE_TIME),
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

/* Each generator's data flow (data_flow.h) says how it splits --size:
 * total_size S for rooted and all-reductions and broadcasts, N*S for the
 * block collectives, N*N blocks of S for alltoall. */
const char *fs_generator_size_meaning(fs_collective c) {
  switch (c) {
    case FS_COLLECTIVE_BCAST: return "the whole vector: the root's S bytes reach every rank";
    case FS_COLLECTIVE_REDUCE: return "the whole vector: every rank's S bytes, reduced at the root";
    case FS_COLLECTIVE_ALLREDUCE: return "the whole vector: every rank's S bytes, reduced on all";
    case FS_COLLECTIVE_SCATTER: return "per-rank block: the root holds N*S bytes, each rank gets S";
    case FS_COLLECTIVE_GATHER: return "per-rank block: each rank's S bytes, the root ends with N*S";
    case FS_COLLECTIVE_ALLGATHER: return "per-rank block: each rank's S bytes, all end with N*S";
    case FS_COLLECTIVE_ALLTOALL:
      return "per-pair block: each rank sends S bytes to every rank (N*S in, N*S out)";
    case FS_COLLECTIVE_REDUCE_SCATTER:
      return "per-rank block: every rank's N*S bytes, rank r ends with the sum of block r";
    case FS_COLLECTIVE_BARRIER: return "each barrier message (MPICH sends 0 B: --size 0)";
    default: return "each message";
  }
}
