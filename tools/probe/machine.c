/* machine.c: which ranks share a node. MPI says which ranks can share
 * memory (MPI_Comm_split_type SHARED): that decides shm or net for a pair.
 * Host names are gathered for the CSV's comments, which name each node.
 * --ranks-per-node replaces MPI's answer by blocks of ranks, so that the
 * two-node experiments can be tried on one machine. */
#include <stdlib.h>
#include <string.h>

#include "probe.h"

int machine_detect(machine *m, int64_t ranks_per_node) {
  *m = (machine){0};
  MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &m->size);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m->rank, MPI_INFO_NULL, &local);
  int leader;
  MPI_Allreduce(&m->rank, &leader, 1, MPI_INT, MPI_MIN, local);
  MPI_Comm_free(&local);
  if (ranks_per_node > 0) leader = (int)(m->rank / ranks_per_node * ranks_per_node);

  int *leaders = malloc((size_t)m->size * sizeof *leaders);
  m->node_of = malloc((size_t)m->size * sizeof *m->node_of);
  m->hosts = malloc((size_t)m->size * sizeof *m->hosts);
  int ok = leaders && m->node_of && m->hosts, all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) {
    free(leaders);
    machine_free(m);
    return -1;
  }
  MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, MPI_COMM_WORLD);
  char host[PROBE_HOST_LENGTH] = {0};
  int length = 0;
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  MPI_Get_processor_name(name, &length);
  /* one token in the CSV's comments: no spaces or commas */
  for (int i = 0; i < length && i < PROBE_HOST_LENGTH - 1; i++)
    host[i] = name[i] == ' ' || name[i] == ',' || name[i] == '=' ? '_' : name[i];
  MPI_Allgather(host, PROBE_HOST_LENGTH, MPI_CHAR, m->hosts, PROBE_HOST_LENGTH, MPI_CHAR,
                MPI_COMM_WORLD);

  /* a leader is the lowest rank of its node, so nodes number in rank order */
  for (int r = 0; r < m->size; r++) {
    if (leaders[r] == r)
      m->node_of[r] = m->nodes++;
    else
      m->node_of[r] = m->node_of[leaders[r]];
  }
  free(leaders);
  int *counts = calloc((size_t)m->nodes, sizeof *counts);
  if (!counts) { /* the same on every rank is not guaranteed: abort */
    machine_free(m);
    probe_fail("out of memory");
  }
  for (int r = 0; r < m->size; r++)
    if (++counts[m->node_of[r]] > m->cores) m->cores = counts[m->node_of[r]];
  free(counts);
  return 0;
}

void machine_free(machine *m) {
  free(m->node_of);
  free(m->hosts);
  m->node_of = NULL;
  m->hosts = NULL;
}

int machine_ranks_on(const machine *m, int node, int *ranks) {
  int count = 0;
  for (int r = 0; r < m->size; r++)
    if (m->node_of[r] == node) ranks[count++] = r;
  return count;
}
