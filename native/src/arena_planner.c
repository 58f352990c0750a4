/* arena_planner.c — offsets for the arena's blocks (see arena_planner.h). */
#include <stdlib.h>

#include "arena_planner.h"

static size_t round_up(size_t n, size_t alignment) { return (n + alignment - 1) / alignment * alignment; }

size_t rl_place_arena_blocks(rl_arena_block *blocks, int32_t count, size_t alignment) {
    int32_t *order = (int32_t *)malloc(sizeof(int32_t) * (size_t)(count + 1));
    if (!order) return (size_t)-1;
    for (int32_t i = 0; i < count; ++i) order[i] = i;
    for (int32_t i = 1; i < count; ++i) { /* insertion sort: by size, descending, then by index */
        const int32_t v = order[i];
        int32_t j = i - 1;
        while (j >= 0 && blocks[order[j]].bytes < blocks[v].bytes) {
            order[j + 1] = order[j];
            --j;
        }
        order[j + 1] = v;
    }
    size_t total = 0;
    for (int32_t n = 0; n < count; ++n) {
        rl_arena_block *b = &blocks[order[n]];
        const size_t need = round_up(b->bytes ? b->bytes : 1, alignment);
        size_t offset = 0;
        for (int moved = 1; moved;) { /* raise the offset past every conflicting neighbour until none is left */
            moved = 0;
            for (int32_t k = 0; k < n; ++k) {
                const rl_arena_block *o = &blocks[order[k]];
                if (o->last_step < b->first_step || o->first_step > b->last_step) continue;
                const size_t o_end = o->offset + round_up(o->bytes ? o->bytes : 1, alignment);
                if (offset < o_end && o->offset < offset + need) {
                    offset = o_end;
                    moved = 1;
                }
            }
        }
        b->offset = offset;
        if (offset + need > total) total = offset + need;
    }
    free(order);
    return total;
}
