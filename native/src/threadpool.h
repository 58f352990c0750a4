/* threadpool.h — a small pthread pool per plan that splits an op's parallel shape (a 2-D range cut into
 * tiles) across its threads. The caller's thread works too; a pool of one thread runs everything inline.
 *
 * Tiles are handed out dynamically, but every tile computes the same values whichever thread runs it, so
 * results never depend on the thread count. */
#ifndef RILLET_THREADPOOL_H
#define RILLET_THREADPOOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct rl_threadpool rl_threadpool;

/* Computes the tile at (i, j): rows i .. i + tile_i - 1 and columns j .. j + tile_j - 1 (the last tiles of
 * each range are cut to fit). */
typedef void (*rl_tile_2d_fn)(void *context, size_t i, size_t j, size_t tile_i, size_t tile_j);

/* NULL when threads <= 1 or when out of resources: callers then run inline (a NULL pool is valid). */
rl_threadpool *rl_threadpool_create(int32_t threads);
void rl_threadpool_destroy(rl_threadpool *pool);
int32_t rl_threadpool_threads(const rl_threadpool *pool);

void rl_parallelize_2d_tile_2d(rl_threadpool *pool, rl_tile_2d_fn fn, void *context, size_t range_i,
                               size_t range_j, size_t tile_i, size_t tile_j);

#endif
