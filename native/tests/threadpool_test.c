/* threadpool_test.c — the plan's thread pool under stress: every tile of every job runs exactly once, for
 * 1 to 5 threads, jobs of 1 to 500 tiles back to back and after pauses long enough for the workers to go to
 * sleep, with a pool destroyed while its workers spin; with work accounting on, every thread runs exactly its
 * own share (the caller the first tiles, whichever thread the OS runs first) and reports CPU time for it, also
 * when the job finds its workers asleep or just woken.
 * Exit 0 when all is well. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "threadpool.h"

typedef struct {
    int *hits;
    size_t range_j;
} job_t;

static void count_tile(void *context, size_t i, size_t j, size_t tile_i, size_t tile_j) {
    job_t *job = (job_t *)context;
    for (size_t a = i; a < i + tile_i; ++a)
        for (size_t b = j; b < j + tile_j; ++b) __atomic_add_fetch(&job->hits[a * job->range_j + b], 1, __ATOMIC_RELAXED);
}

typedef struct {
    pthread_t caller;
    int *by_caller; /* per tile: 1 when the caller's thread ran it, 0 another, -1 not run */
} owner_job_t;

static void note_owner(void *context, size_t i, size_t j, size_t tile_i, size_t tile_j) {
    (void)j;
    (void)tile_j;
    owner_job_t *job = (owner_job_t *)context;
    for (size_t a = i; a < i + tile_i; ++a) job->by_caller[a] = pthread_equal(pthread_self(), job->caller) ? 1 : 0;
}

static void pause_us(long us) {
    struct timespec t = {0, us * 1000L};
    nanosleep(&t, NULL);
}

/* Accounting: tiles split in the pool's contiguous shares and nothing stolen, so the caller ran exactly the
 * first range_i / threads of them (rl_parallelize_2d_tile_2d's split) and every worker's slot got time (the
 * caller's stays 0: its work is what its user measures less its waits). */
static int check_accounting(void) {
    int failures = 0;
    for (int threads = 2; threads <= 5; ++threads) {
        rl_threadpool *pool = rl_threadpool_create(threads);
        int64_t slots[6];
        rl_threadpool_set_accounting(pool, slots);
        for (size_t range_i = (size_t)threads; range_i < 200; range_i += 7) {
            for (int k = 0; k <= threads; ++k) slots[k] = 0;
            int by_caller[200];
            owner_job_t job = {pthread_self(), by_caller};
            for (size_t k = 0; k < range_i; ++k) by_caller[k] = -1;
            /* Pauses around the workers' 200 us of polling, so that jobs meet workers polling, falling asleep,
             * asleep, and woken but not yet running: the caller waits for every share, so a lost wake-up
             * hangs here. */
            pause_us(150 + (long)(range_i * 37 % 200));
            rl_parallelize_2d_tile_2d(pool, note_owner, &job, range_i, 1, 1, 1);
            const size_t caller_share = range_i / (size_t)threads;
            for (size_t k = 0; k < range_i; ++k)
                if (by_caller[k] != (k < caller_share)) {
                    if (failures++ < 10)
                        printf("accounting, threads %d, %zu tiles: tile %zu ran %s\n", threads, range_i, k,
                               by_caller[k] < 0 ? "never" : by_caller[k] ? "on the caller" : "on a worker");
                }
            for (int k = 1; k < threads; ++k)
                if (__atomic_load_n(&slots[k], __ATOMIC_RELAXED) <= 0 && failures++ < 10)
                    printf("accounting, threads %d: thread %d reported no time\n", threads, k);
            if (slots[0] != 0 && failures++ < 10)
                printf("accounting, threads %d: the caller's slot holds %lld, not 0\n", threads, (long long)slots[0]);
        }
        rl_threadpool_set_accounting(pool, NULL);
        rl_threadpool_destroy(pool);
    }
    return failures;
}

int main(void) {
    unsigned seed = 12345;
    int failures = 0;
    for (int threads = 1; threads <= 5; ++threads) {
        rl_threadpool *pool = rl_threadpool_create(threads);
        for (int round = 0; round < 3000; ++round) {
            seed = seed * 1103515245u + 12345u;
            const size_t range_i = 1 + (seed >> 8) % 60, range_j = 1 + (seed >> 16) % 9;
            const size_t tile_i = 1 + (seed >> 4) % 7, tile_j = 1 + (seed >> 20) % 4;
            int *hits = (int *)calloc(range_i * range_j, sizeof(int));
            job_t job = {hits, range_j};
            rl_parallelize_2d_tile_2d(pool, count_tile, &job, range_i, range_j, tile_i, tile_j);
            for (size_t k = 0; k < range_i * range_j; ++k)
                if (hits[k] != 1) {
                    if (failures++ < 10)
                        printf("threads %d round %d: element %zu of %zux%zu (tiles %zux%zu) ran %d times\n", threads,
                               round, k, range_i, range_j, tile_i, tile_j, hits[k]);
                }
            free(hits);
            if (round % 500 == 499) pause_us(20000); /* long enough for the workers to fall asleep */
        }
        rl_threadpool_destroy(pool);
    }
    rl_threadpool_destroy(rl_threadpool_create(3)); /* destroyed while its workers still spin */
    failures += check_accounting();
    if (failures) printf("%d failures\n", failures);
    return failures ? 1 : 0;
}
