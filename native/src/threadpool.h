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

/* Work accounting, for finding ops whose threads idle (bench/thread_shares.py): while `thread_ns` is set
 * (one int64 per thread, the caller's first), every worker adds the CPU time (CLOCK_THREAD_CPUTIME_ID) it
 * spends running tiles to its slot, and the caller adds the CPU time it spends waking and waiting for the
 * workers to `thread_ns[threads]`, so that an op's caller-side work is its CPU time less that wait (the
 * caller's own slot stays 0: a clock read is a system call, and two more per job on the caller alone would
 * count as its work).
 * Meanwhile no thread steals: each runs its own share of every job (the same tiles, so the same results),
 * and the times say how each op divides its work whatever else the machine runs. NULL (the default) turns
 * it off: one load per job per thread. Set between invokes only. */
void rl_threadpool_set_accounting(rl_threadpool *pool, int64_t *thread_ns);

void rl_parallelize_2d_tile_2d(rl_threadpool *pool, rl_tile_2d_fn fn, void *context, size_t range_i,
                               size_t range_j, size_t tile_i, size_t tile_j);

#endif
