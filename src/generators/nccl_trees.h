/* nccl_trees.h: NCCL 2.30.7's double binary tree over nodes
 * (NCCL's graph/trees.cc: ncclGetBtree, ncclGetDtree), which its tree
 * algorithm uses across nodes; allreduce-nccl-tree (nccl_tree.c) adds the
 * chain of GPUs within each node.
 *
 * Tree 0 (root node 0): with b the lowest set bit of node n, the parent is
 * (n xor b) | 2b, or n xor b when that is not a node; the children are
 * n - b/2 (child 0) and the largest n + b/2^j below the node count
 * (child 1); odd nodes are leaves. The root's only child, the largest power
 * of 2 below the node count, is its child 1. Tree 1: node n plays the role
 * of N-1-n in tree 0 (mirror) when N is even, of (n-1) mod N (shift) when
 * N is odd. */
#ifndef FS_NCCL_TREES_H
#define FS_NCCL_TREES_H

#include <stdint.h>

typedef struct fs_nccl_tree_node {
  int32_t up;      /* parent node, -1 at the root */
  int32_t down[2]; /* child 0 and child 1, -1 for none */
  int child_type;  /* which child of its parent the node is (0 or 1) */
} fs_nccl_tree_node;

/* Node `node` (0..nodes-1) in tree 0 (btree) or tree `tree` (0 or 1) of
 * the double binary tree. */
void fs_nccl_btree(int32_t nodes, int32_t node, fs_nccl_tree_node *out);
void fs_nccl_dtree(int32_t nodes, int32_t node, int tree, fs_nccl_tree_node *out);

/* The tree channel c of `channels` uses: NCCL runs channels 0..n-1 on tree
 * 0 and n..2n-1 on tree 1 for 2n channels; here the first ceil(C/2) of C
 * channels use tree 0, the others tree 1. */
int fs_nccl_tree_of_channel(int32_t channel, int32_t channels);

#endif
