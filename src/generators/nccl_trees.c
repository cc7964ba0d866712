/* nccl_trees.c: NCCL's double binary tree over nodes (see nccl_trees.h). */
#include "generators/nccl_trees.h"

void fs_nccl_btree(int32_t nodes, int32_t node, fs_nccl_tree_node *out) {
  int64_t n = nodes, bit = 1;
  *out = (fs_nccl_tree_node){-1, {-1, -1}, 0};
  while (bit < n && !(bit & node)) bit <<= 1;
  if (node == 0) { /* bit: the first power of 2 >= n */
    if (n > 1) out->down[1] = (int32_t)(bit >> 1);
    return;
  }
  int64_t up = (node ^ bit) | (bit << 1);
  if (up >= n) up = node ^ bit;
  out->up = (int32_t)up;
  out->child_type = node < up ? 0 : 1;
  int64_t low = bit >> 1;
  if (low == 0) return; /* odd: a leaf */
  out->down[0] = (int32_t)(node - low);
  int64_t child = node + low;
  while (child >= n) {
    low >>= 1;
    child = low ? node + low : -1;
  }
  out->down[1] = (int32_t)child;
}

/* x of the transformed tree back to a node: mirror or shift, -1 kept. */
static int32_t back(int32_t x, int32_t nodes) {
  if (x < 0) return -1;
  return nodes % 2 == 0 ? nodes - 1 - x : (x + 1) % nodes;
}

void fs_nccl_dtree(int32_t nodes, int32_t node, int tree, fs_nccl_tree_node *out) {
  if (tree == 0) {
    fs_nccl_btree(nodes, node, out);
    return;
  }
  int32_t role = nodes % 2 == 0 ? nodes - 1 - node : (node - 1 + nodes) % nodes;
  fs_nccl_tree_node t;
  fs_nccl_btree(nodes, role, &t);
  *out = (fs_nccl_tree_node){back(t.up, nodes),
                             {back(t.down[0], nodes), back(t.down[1], nodes)},
                             t.child_type};
}

int fs_nccl_tree_of_channel(int32_t channel, int32_t channels) {
  return channel < (channels + 1) / 2 ? 0 : 1;
}
