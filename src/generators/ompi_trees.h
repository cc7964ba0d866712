/* ompi_trees.h: the tree shapes of Open MPI's coll/base topology
 * (coll_base_topo.c), private to src/generators, for the generators that
 * reproduce its tree algorithms (bcast-knomial, bcast-split-binary,
 * reduce-binary, reduce-in-order-binary). Ranks here are relative to the
 * tree's root (v = (rank - root) mod N) except for the in-order tree, which
 * Open MPI always roots at rank N-1 in absolute ranks. */
#ifndef FS_OMPI_TREES_H
#define FS_OMPI_TREES_H

#include <stdint.h>

/* topo_build_tree(2): v on level L = floor(log2(v+1)) has the children
 * v + 2^L and v + 2^(L+1) (those < n), in that order; the same levels as a
 * heap, numbered so that the subtree of 1 holds the odd v and that of 2
 * the even ones. Returns the number of children (0..2). */
static inline int fs_ompi_bintree_children(int32_t v, int32_t n, int32_t child[2]) {
  int64_t delta = 1;
  while (2 * delta - 1 <= v) delta *= 2; /* 2^L: levels above hold 2^L - 1 ranks */
  int count = 0;
  for (int64_t c = v + delta; c < n && count < 2; c += delta) child[count++] = (int32_t)c;
  return count;
}

/* Depth of v in that tree: floor(log2(v+1)). */
static inline int fs_ompi_bintree_depth(int32_t v) {
  int d = 0;
  while (((int64_t)2 << d) - 1 <= v) d++;
  return d;
}

/* topo_build_kmtree(radix): the k-nomial tree. v's parent clears v's lowest
 * non-zero base-radix digit; v's children are v + r*m for the masks m =
 * radix^j below that digit's (every power below n for the root), from the
 * largest mask down, r = 1 .. radix-1 within a mask (those < n). Writes
 * them to child (room for (radix-1)*ceil(log_radix n)) and returns their
 * number. */
static inline int fs_ompi_kmtree_children(int32_t v, int32_t n, int32_t radix, int32_t *child) {
  int64_t mask = 1;
  while (mask < n && v % (radix * mask) == 0) mask *= radix;
  int count = 0;
  for (mask /= radix; mask > 0; mask /= radix)
    for (int64_t r = 1; r < radix && v + r * mask < n; r++)
      child[count++] = (int32_t)(v + r * mask);
  return count;
}

/* Depth of v in the k-nomial tree: its non-zero base-radix digits. */
static inline int fs_ompi_kmtree_depth(int32_t v, int32_t radix) {
  int d = 0;
  for (; v > 0; v /= radix) d += v % radix != 0;
  return d;
}

/* topo_build_in_order_bintree: rooted at n-1 (absolute ranks). The subtree
 * of `size` ranks lo .. lo+size-1 has its root at lo+size-1; its right
 * subtree is the lowest size/2 ranks (root lo+size/2-1), its left subtree
 * the ranks between (root lo+size-2); a subtree of 2 has the one child lo.
 * Children are listed left first, as Open MPI's tree_next. Fills, for all n
 * ranks, child[2r], child[2r+1] (-1: none), depth[r] and size[r] (the
 * subtree's rank count; children are lower ranks than their parent, so one
 * pass from the top sees every subtree's size before its root). */
static inline void fs_ompi_in_order_tree(int32_t n, int32_t *child, int32_t *depth, int32_t *size) {
  if (n < 1) return;
  size[n - 1] = n, depth[n - 1] = 0;
  for (int32_t r = n - 1; r >= 0; r--) {
    int32_t s = size[r], lo = r - s + 1, right = s / 2;
    child[2 * r] = child[2 * r + 1] = -1;
    if (s == 2) {
      child[2 * r] = lo, size[lo] = 1, depth[lo] = depth[r] + 1;
    } else if (s > 2) {
      child[2 * r] = r - 1, size[r - 1] = s - right - 1, depth[r - 1] = depth[r] + 1;
      child[2 * r + 1] = lo + right - 1, size[lo + right - 1] = right;
      depth[lo + right - 1] = depth[r] + 1;
    }
  }
}

#endif
