/* mpi_selection.h: which algorithm an MPI library runs for a collective
 * call, by its default decision rules, as a generator spec that reproduces
 * it. Two libraries, from their published sources (the versions are in
 * fs_mpi_library_version and docs/ALGORITHMS.md):
 *
 *   mpich  MPICH 4.1 to 5.0.1: the flat (MPIR) selection table, which is
 *          what runs on a communicator with one rank per node
 *   ompi   Open MPI 4.1.x and 5.0.x: coll/tuned's fixed decision rules
 *          (the same code in both), with the fallbacks inside the
 *          algorithms (ring allreduce runs recursive doubling when
 *          count < P, and so on)
 *
 * The rules read the communicator size P, the message size in the
 * library's own meaning (converted here from fennelsim's --size, which
 * fs_generator_size_meaning defines), the element count (bytes / element
 * size, 8 by default: MPI_DOUBLE) and whether the operation is
 * commutative (always, for fennelsim's reductions).
 *
 * The selectors are also generators ("allreduce-mpich", "bcast-ompi", ...,
 * trait FS_GEN_SELECTOR in generators.h): generating one generates the
 * picked algorithm. An algorithm the library would pick but fennelsim
 * does not generate is an error that names it, never a stand-in. */
#ifndef FS_MPI_SELECTION_H
#define FS_MPI_SELECTION_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "generators/algorithm_spec.h"
#include "generators/data_flow.h"

typedef enum fs_mpi_library { FS_MPI_MPICH, FS_MPI_OMPI, FS_MPI_LIBRARIES } fs_mpi_library;

typedef struct fs_mpi_call {
  fs_collective collective;
  int32_t ranks;
  int64_t size;    /* fennelsim's --size for this collective (bytes) */
  int32_t element; /* bytes per element; 0: 8 */
  int32_t root;
} fs_mpi_call;

typedef struct fs_mpi_choice {
  fs_algorithm_spec spec; /* the generator and options that reproduce the pick */
  char algorithm[96];     /* the library's own name: "reduce_scatter_allgather",
                             "tuned 6 (rabenseifner)" */
  char rule[320];         /* the rule that fired: "P >= 8, pow2, n <= 12288" */
  char detail[512];       /* NCCL's: every (algorithm, protocol)'s predicted time; MPI: "" */
  char note[256];         /* NCCL's: why it generates other than NCCL's pick; else "" */
} fs_mpi_choice;

/* "mpich" or "ompi" (-1 otherwise). */
int fs_mpi_library_find(const char *name);
const char *fs_mpi_library_name(fs_mpi_library library);
/* "MPICH 4.1-5.0.1 (MPIR generic.json)", "Open MPI 4.1.x/5.0.x (coll/tuned fixed rules)". */
const char *fs_mpi_library_version(fs_mpi_library library);

/* The library's pick for the call: 0 with *choice filled, or -1 with err
 * ("Open MPI picks bcast split_binary_tree (tuned 4) at 6 ranks, 600 B,
 * which fennelsim does not generate"; or the call is out of the rules'
 * range). */
int fs_mpi_select(fs_mpi_library library, const fs_mpi_call *call, fs_mpi_choice *choice,
                  fs_error *err);

/* The decision alone, as text (what fs_mpi_select parses): the library's
 * algorithm, the rule that fired and the generator spec that reproduces it
 * ("allreduce-rabenseifner", "bcast-knomial:ways=4"; "" when fennelsim does
 * not generate it). Needs no generator to exist: tests check it by name.
 * 0, or -1 with err when the call is outside the rules (no ranks, a
 * negative size, a collective neither library's table covers). */
typedef struct fs_mpi_decision {
  char algorithm[96];
  char rule[160];
  char spec[FS_ALGORITHM_TEXT_MAX];
} fs_mpi_decision;
int fs_mpi_decide(fs_mpi_library library, const fs_mpi_call *call, fs_mpi_decision *decision,
                  fs_error *err);

/* For a selector generator (FS_GEN_SELECTOR, "<collective>-<library>"):
 * its library's pick for the generator options o (ranks, size, element,
 * root; for "-nccl" also the platform's nodes: nccl_selection.h). gen uses
 * it to say what was picked. */
int fs_mpi_select_options(const fs_generator *selector, const fs_generator_options *o,
                          fs_mpi_choice *choice, fs_error *err);
/* Where a selector's rules come from: fs_mpi_library_version, or NCCL's. */
const char *fs_mpi_selector_version(const fs_generator *selector);
/* A selector's schedule: the picked generator's, with the same options
 * (the pick's own, such as ways=4, added). */
fs_program *fs_generate_mpi_selected(fs_mpi_library library, fs_collective collective,
                                     const fs_generator_options *o, fs_error *err);

/* The generate() of the 16 selectors in the registry. */
#define FS_MPI_SELECTOR_DECLARE(coll)                                                   \
  fs_program *fs_generate_##coll##_mpich(const fs_generator_options *o, fs_error *err); \
  fs_program *fs_generate_##coll##_ompi(const fs_generator_options *o, fs_error *err);
FS_MPI_SELECTOR_DECLARE(barrier)
FS_MPI_SELECTOR_DECLARE(bcast)
FS_MPI_SELECTOR_DECLARE(reduce)
FS_MPI_SELECTOR_DECLARE(allreduce)
FS_MPI_SELECTOR_DECLARE(gather)
FS_MPI_SELECTOR_DECLARE(scatter)
FS_MPI_SELECTOR_DECLARE(allgather)
FS_MPI_SELECTOR_DECLARE(alltoall)

#endif
