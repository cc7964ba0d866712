/* scatter_klevel.c: `gen scatter-klevel`: the SMP-clusters thesis's
 * kappa-level personalized broadcast (Schmollinger 2003, §3.2.3, eqs.
 * 3.10-3.12; the SMP-clusters thesis), as MPI_Scatter from --root with
 * --size S per rank's block. The tree and the order of the messages are
 * bcast-klevel's (bcast_klevel.c, which builds both): a representative
 * receives the blocks of every rank of its sub-machine (S * its ranks; on
 * a full machine M * alpha(0) * ... * alpha(l-1) at level l) and forwards
 * the sub-parts; phase 2 sends each other rank of a node its own block. */
#include "generators/generator_support.h"

fs_program *fs_generate_scatter_klevel(const fs_generator_options *o, fs_error *err) {
  return fs_generate_klevel("scatter-klevel", o, 1, err);
}
