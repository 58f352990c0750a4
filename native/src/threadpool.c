/* threadpool.c — the plan's worker threads. Workers spin briefly for the next op's job (an invoke runs
 * dozens of short parallel ops back to back, and a sleep/wake per op would cost more than the op), then
 * sleep on a condition variable until the next invoke. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "threadpool.h"

#define RL_SPIN_ROUNDS 20000

struct rl_threadpool {
    int32_t threads; /* including the caller's */
    pthread_t *workers;
    pthread_mutex_t mutex;
    pthread_cond_t wake, done;
    /* The current job, published under the mutex and through the generation counter. */
    rl_tile_2d_fn fn;
    void *context;
    size_t range_i, range_j, tile_i, tile_j, tiles_j, tiles;
    size_t next_tile;     /* atomic: the next tile to hand out */
    uint64_t generation;  /* atomic: bumped once per job */
    int32_t active;       /* atomic: workers still inside the current job */
    int32_t stopping;
};

static void run_tiles(rl_threadpool *pool) {
    for (;;) {
        const size_t t = __atomic_fetch_add(&pool->next_tile, 1, __ATOMIC_RELAXED);
        if (t >= pool->tiles) return;
        const size_t i = (t / pool->tiles_j) * pool->tile_i, j = (t % pool->tiles_j) * pool->tile_j;
        const size_t ti = pool->range_i - i < pool->tile_i ? pool->range_i - i : pool->tile_i;
        const size_t tj = pool->range_j - j < pool->tile_j ? pool->range_j - j : pool->tile_j;
        pool->fn(pool->context, i, j, ti, tj);
    }
}

static void *worker_main(void *arg) {
    rl_threadpool *pool = (rl_threadpool *)arg;
    uint64_t seen = 0;
    for (;;) {
        uint64_t now = __atomic_load_n(&pool->generation, __ATOMIC_ACQUIRE);
        for (int spin = 0; now == seen && spin < RL_SPIN_ROUNDS; ++spin) {
            if (spin % 64 == 63) sched_yield();
            now = __atomic_load_n(&pool->generation, __ATOMIC_ACQUIRE);
        }
        pthread_mutex_lock(&pool->mutex);
        while (pool->generation == seen && !pool->stopping) pthread_cond_wait(&pool->wake, &pool->mutex);
        if (pool->stopping) {
            pthread_mutex_unlock(&pool->mutex);
            return NULL;
        }
        seen = pool->generation;
        pthread_mutex_unlock(&pool->mutex);
        run_tiles(pool);
        pthread_mutex_lock(&pool->mutex);
        if (__atomic_sub_fetch(&pool->active, 1, __ATOMIC_ACQ_REL) == 0) pthread_cond_signal(&pool->done);
        pthread_mutex_unlock(&pool->mutex);
    }
}

rl_threadpool *rl_threadpool_create(int32_t threads) {
    if (threads <= 1) return NULL;
    rl_threadpool *pool = (rl_threadpool *)calloc(1, sizeof *pool);
    if (!pool) return NULL;
    pool->workers = (pthread_t *)calloc((size_t)threads - 1, sizeof(pthread_t));
    if (!pool->workers || pthread_mutex_init(&pool->mutex, NULL) != 0) {
        free(pool->workers);
        free(pool);
        return NULL;
    }
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done, NULL);
    pool->threads = 1;
    for (int32_t k = 0; k < threads - 1; ++k) {
        if (pthread_create(&pool->workers[k], NULL, worker_main, pool) != 0) break;
        pool->threads++;
    }
    if (pool->threads == 1) {
        rl_threadpool_destroy(pool);
        return NULL;
    }
    return pool;
}

void rl_threadpool_destroy(rl_threadpool *pool) {
    if (!pool) return;
    pthread_mutex_lock(&pool->mutex);
    pool->stopping = 1;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mutex);
    for (int32_t k = 0; k < pool->threads - 1; ++k) pthread_join(pool->workers[k], NULL);
    pthread_cond_destroy(&pool->wake);
    pthread_cond_destroy(&pool->done);
    pthread_mutex_destroy(&pool->mutex);
    free(pool->workers);
    free(pool);
}

int32_t rl_threadpool_threads(const rl_threadpool *pool) { return pool ? pool->threads : 1; }

void rl_parallelize_2d_tile_2d(rl_threadpool *pool, rl_tile_2d_fn fn, void *context, size_t range_i,
                               size_t range_j, size_t tile_i, size_t tile_j) {
    if (range_i == 0 || range_j == 0) return;
    if (tile_i == 0) tile_i = 1;
    if (tile_j == 0) tile_j = 1;
    const size_t tiles_i = (range_i + tile_i - 1) / tile_i, tiles_j = (range_j + tile_j - 1) / tile_j;
    if (!pool || tiles_i * tiles_j == 1) {
        for (size_t i = 0; i < range_i; i += tile_i)
            for (size_t j = 0; j < range_j; j += tile_j)
                fn(context, i, j, range_i - i < tile_i ? range_i - i : tile_i, range_j - j < tile_j ? range_j - j : tile_j);
        return;
    }
    pthread_mutex_lock(&pool->mutex);
    pool->fn = fn;
    pool->context = context;
    pool->range_i = range_i;
    pool->range_j = range_j;
    pool->tile_i = tile_i;
    pool->tile_j = tile_j;
    pool->tiles_j = tiles_j;
    pool->tiles = tiles_i * tiles_j;
    __atomic_store_n(&pool->next_tile, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&pool->active, pool->threads - 1, __ATOMIC_RELAXED);
    __atomic_store_n(&pool->generation, pool->generation + 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mutex);
    run_tiles(pool);
    for (int spin = 0; __atomic_load_n(&pool->active, __ATOMIC_ACQUIRE) > 0 && spin < RL_SPIN_ROUNDS; ++spin)
        if (spin % 64 == 63) sched_yield();
    pthread_mutex_lock(&pool->mutex);
    while (__atomic_load_n(&pool->active, __ATOMIC_ACQUIRE) > 0) pthread_cond_wait(&pool->done, &pool->mutex);
    pthread_mutex_unlock(&pool->mutex);
}
