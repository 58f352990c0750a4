/* arena_planner.h — places blocks with lifetimes (tensors, per-op scratch) at offsets in one arena so that
 * blocks alive at the same step never overlap. Knows nothing of ops or tensors. */
#ifndef RILLET_ARENA_PLANNER_H
#define RILLET_ARENA_PLANNER_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    size_t bytes;
    int32_t first_step, last_step; /* alive over [first_step, last_step] */
    size_t offset;                 /* out */
} rl_arena_block;

/* Greedy by size, as TFLite's planner: largest first, each at the lowest offset (a multiple of alignment)
 * clear of every placed block whose lifetime meets its own. Returns the arena's size, or (size_t)-1 when
 * out of memory for the planner's own bookkeeping. */
size_t rl_place_arena_blocks(rl_arena_block *blocks, int32_t count, size_t alignment);

#endif
