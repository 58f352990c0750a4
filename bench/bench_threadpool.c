/* bench_threadpool.c — what one parallel op costs the thread pool itself: the median time of a job whose
 * tiles do nothing (the fork and join alone), and of one whose tiles each write their slice of a buffer the
 * caller then reads (the cache lines an op's output trades between cores), against the same work on the
 * caller alone. A model like mobilenet_v2_035_96 runs about 60 such jobs per invoke, most of a few
 * microseconds, so these costs decide how far a second thread helps.
 *
 *     gcc -O2 -Inative/src bench/bench_threadpool.c native/src/threadpool.c -lpthread -o /tmp/bench_tp
 *     /tmp/bench_tp [threads]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "threadpool.h"

#define JOBS 20000
#define BUFFER_BYTES (24 * 1024) /* a 6x6x144 float activation, about */

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int compare(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void nothing(void *context, size_t i, size_t j, size_t ti, size_t tj) {
    (void)context, (void)i, (void)j, (void)ti, (void)tj;
}

typedef struct {
    unsigned char *buffer;
    size_t slice;
} touch_job;

static void write_slice(void *context, size_t i, size_t j, size_t ti, size_t tj) {
    const touch_job *job = (const touch_job *)context;
    (void)j, (void)tj;
    memset(job->buffer + i * job->slice, (int)i, ti * job->slice);
}

/* Median ns per job: fn over 16 tiles, then (when `read`) the caller sums the buffer, as the next op would. */
static double per_job(rl_threadpool *pool, rl_tile_2d_fn fn, touch_job *job, int read) {
    static double samples[JOBS];
    volatile unsigned sink = 0;
    for (int k = 0; k < JOBS; ++k) {
        const double start = now_ns();
        rl_parallelize_2d_tile_2d(pool, fn, job, 16, 1, 1, 1);
        if (read) {
            unsigned sum = 0;
            for (size_t b = 0; b < BUFFER_BYTES; b += 64) sum += job->buffer[b];
            sink += sum;
        }
        samples[k] = now_ns() - start;
    }
    (void)sink;
    qsort(samples, JOBS, sizeof samples[0], compare);
    return samples[JOBS / 2];
}

int main(int argc, char **argv) {
    const int threads = argc > 1 ? atoi(argv[1]) : 2;
    rl_threadpool *pool = rl_threadpool_create(threads);
    touch_job job = {.buffer = (unsigned char *)calloc(BUFFER_BYTES, 1), .slice = BUFFER_BYTES / 16};
    if (!job.buffer) return 1;
    per_job(pool, nothing, &job, 0); /* warm up: the workers are spinning from here on */
    const double empty_1 = per_job(NULL, nothing, &job, 0), empty_n = per_job(pool, nothing, &job, 0);
    const double touch_1 = per_job(NULL, write_slice, &job, 1), touch_n = per_job(pool, write_slice, &job, 1);
    printf("%d threads: empty job %.0f ns (caller alone %.0f ns); %d KiB written by the tiles and read by the "
           "caller %.0f ns (caller alone %.0f ns)\n",
           rl_threadpool_threads(pool), empty_n, empty_1, BUFFER_BYTES / 1024, touch_n, touch_1);
    rl_threadpool_destroy(pool);
    free(job.buffer);
    return 0;
}
