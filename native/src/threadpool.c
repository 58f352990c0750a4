/* threadpool.c — the plan's worker threads. Workers spin briefly for the next op's job (an invoke runs
 * dozens of short parallel ops back to back, and a sleep/wake per op would cost more than the op), then
 * sleep on a futex until the next invoke.
 *
 * Each thread starts on its own contiguous share of the tiles and steals from the others' ends when done,
 * as pthreadpool does: thread k then computes the same rows in consecutive ops, so the rows an op reads
 * are mostly the ones the same core has just written (handing tiles out from one shared counter made the
 * cores trade each activation through the caches, and two threads ran slower than one). */
#define _DEFAULT_SOURCE /* syscall() */
#if defined(__linux__) && !defined(RL_POOL_PORTABLE_FUTEX)
#include <linux/futex.h>
#include <sys/syscall.h>
#endif
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef RL_POOL_TRACE
#include <stdio.h>
#endif

#include "threadpool.h"

/* Polling lasts this long: longer than the gap between two ops of an invoke or between invokes of a loop,
 * far shorter than a frame's wait. Counted in time, not rounds: a pause takes 140 cycles on a recent Xeon
 * and a few on a Cortex-A, so 100,000 rounds were 7 ms of a core burnt after every invoke on one and 50 us
 * on the other. */
#ifndef RL_SPIN_NANOSECONDS /* -D for experiments (bench/bench_pool_ab.py) */
#define RL_SPIN_NANOSECONDS 200000
#endif
/* Rounds between two looks at the clock (a clock read costs about as much as 20 pauses). */
#define RL_SPIN_CHECK 64

static int64_t monotonic_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + (int64_t)t.tv_nsec;
}

/* Whether a spin that began at `start` (0: not yet read) may go on after `rounds` rounds. */
static int keep_spinning(int64_t *start, int rounds) {
    if (rounds % RL_SPIN_CHECK != 0) return 1;
    const int64_t now = monotonic_ns();
    if (*start == 0) *start = now;
    return now - *start < RL_SPIN_NANOSECONDS;
}

/* A polite busy-wait step: lets the sibling hyperthread run and saves power, without giving up the core (a
 * sched_yield can hand it to another process for a whole time slice). */
static void spin_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || (defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH >= 7)
    __asm__ __volatile__("yield");
#endif
}

#ifdef RL_POOL_TRACE
/* A dev-only build (bench/pool_trace.py builds it with -DRL_POOL_TRACE) that clocks where a job's wall time goes
 * that CPU-time accounting cannot see: how long a worker takes to join a job after the caller publishes it
 * (spinning, woken from sleep, or descheduled), how long the caller waits at the join, the caller's serial time
 * between jobs, and how many tiles each side steals. Each worker writes only its own slot, the caller only its
 * own; rl_threadpool_destroy appends the sums to the file $RILLET_POOL_TRACE names. */
enum { RL_TRACE_BUCKETS = 5 }; /* worker join latency: < 1, < 4, < 16, < 64 us, more */
typedef struct {
    int64_t joined, late, slept, tiles, stolen, busy_ns, latency_ns;
    int64_t latency_buckets[RL_TRACE_BUCKETS];
} __attribute__((aligned(64))) rl_worker_trace;
typedef struct {
    int64_t jobs, woken, wake_ns, tiles, stolen, own_ns, join_ns, gap_ns, gaps, idles, last_joined_ns;
    int64_t after_idle_jobs, after_idle_ns; /* the first job after a gap of 1 ms or more: publish to join */
} rl_caller_trace;
#define RL_TRACE_IDLE_NS 1000000
#endif

/* One thread's share of the current job's tiles, on its own cache line: `length` counts the tiles not yet
 * claimed (it may go negative), the owner takes from `start`, thieves from `end`. */
typedef struct {
    size_t start, end;
    ptrdiff_t length;
    char pad[64 - 2 * sizeof(size_t) - sizeof(ptrdiff_t)];
} rl_tile_range;

/* How a worker sleeps and is woken, without a lock: a futex word of its own, 1 while it sleeps and no wake has
 * reached it. The caller wakes a worker only when it swaps that 1 for a 0, so once per sleep (a futex wake
 * costs the caller 6-7 us on this VM, and a woken worker on a loaded machine can take hundreds of microseconds
 * to run; waking it at every job until then cost a BERT-tiny invoke 9 wakes for under 2 sleeps). No mutex
 * either: with a condition variable the caller locked a mutex to wake, and a worker preempted while it held
 * the mutex (going to sleep, or just woken and taking it back) blocked the caller for a whole time slice: on
 * this loaded VM (load 9 on 2 vCPUs) 2 ms per wake, 19 ms of a 42 ms ViT-tiny invoke. */
typedef struct {
    int32_t state; /* atomic */
    char pad[64 - sizeof(int32_t)];
} rl_sleep_word;

#if defined(__linux__) && !defined(RL_POOL_PORTABLE_FUTEX)
static void futex_wait(int32_t *word, int32_t expected) {
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void futex_wake(int32_t *word, int32_t count) {
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}
#else
/* Elsewhere (the pool was plain pthreads before it used futexes, and builds on any POSIX system) the same two
 * calls on one process-wide condition variable: a waiter checks the word under the lock and a waker takes the
 * lock after changing the word, so no wake is lost; a wake reaches every sleeper, and each caller's loop checks
 * its own condition again. -DRL_POOL_PORTABLE_FUTEX builds this on Linux (the pool's tester runs it there). */
static pthread_mutex_t futex_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t futex_changed = PTHREAD_COND_INITIALIZER;

static void futex_wait(int32_t *word, int32_t expected) {
    pthread_mutex_lock(&futex_lock);
    if (__atomic_load_n(word, __ATOMIC_SEQ_CST) == expected) pthread_cond_wait(&futex_changed, &futex_lock);
    pthread_mutex_unlock(&futex_lock);
}

static void futex_wake(int32_t *word, int32_t count) {
    (void)word, (void)count;
    pthread_mutex_lock(&futex_lock);
    pthread_cond_broadcast(&futex_changed);
    pthread_mutex_unlock(&futex_lock);
}
#endif

struct rl_threadpool {
    /* The current job, on one cache line the caller alone writes: its fields, then `open` and `generation`
     * (release); a worker reads them only after seeing both, and one line transfer brings it all. */
    struct {
        rl_tile_2d_fn fn;
        void *context;
        size_t range_i, range_j;
        size_t tile_i, tile_j; /* tiles_j is computed per tile: the line holds no more */
        int32_t open;        /* atomic: 1 while the current job has tiles to claim */
        uint64_t generation; /* atomic: bumped once per job */
    } __attribute__((aligned(64))) job;
    /* Written by the workers at every job: a line of its own, so checking in does not take the job's line
     * away from the caller while it writes the next job. */
    int32_t active __attribute__((aligned(64))); /* atomic: workers checked in to a job and not yet out */
    /* Touched only around sleeping. */
    /* atomic: the caller sleeps on `active` (a worker wakes it only then) */
    int32_t caller_waiting __attribute__((aligned(64)));
    int32_t stopping;
    int32_t threads; /* including the caller's */
    pthread_t *workers;
    struct rl_worker_start *starts; /* each worker's pool and thread index */
    rl_sleep_word *sleep; /* one per thread, the caller's unused */
    rl_tile_range *ranges; /* one per thread, the caller's first */
    int64_t *accounting;   /* rl_threadpool_set_accounting's slots, or NULL */
#ifdef RL_POOL_TRACE
    int64_t publish_ns; /* atomic: when the current job was published */
    rl_caller_trace caller_trace;
    rl_worker_trace *worker_trace; /* one per thread; slot 0 unused */
#endif
};

static int64_t thread_cpu_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (int64_t)t.tv_sec * 1000000000 + (int64_t)t.tv_nsec;
}

static void run_tile(rl_threadpool *pool, size_t t) {
    const size_t tile_i = pool->job.tile_i, tile_j = pool->job.tile_j;
    const size_t tiles_j = (pool->job.range_j + tile_j - 1) / tile_j;
    const size_t i = (t / tiles_j) * tile_i, j = (t % tiles_j) * tile_j;
    const size_t ti = pool->job.range_i - i < tile_i ? pool->job.range_i - i : tile_i;
    const size_t tj = pool->job.range_j - j < tile_j ? pool->job.range_j - j : tile_j;
    pool->job.fn(pool->job.context, i, j, ti, tj);
}

/* Returns the tiles run, own and stolen (the trace build counts them; others drop the sums). */
static void run_tiles_unaccounted(rl_threadpool *pool, int32_t self, int64_t *own_tiles, int64_t *stolen_tiles) {
    rl_tile_range *own = &pool->ranges[self];
    int64_t owned = 0, stolen = 0;
    while (__atomic_fetch_sub(&own->length, 1, __ATOMIC_ACQ_REL) > 0) {
        run_tile(pool, __atomic_fetch_add(&own->start, 1, __ATOMIC_RELAXED));
        ++owned;
    }
    for (int32_t k = 1; k < pool->threads; ++k) {
        rl_tile_range *victim = &pool->ranges[(self + k) % pool->threads];
        /* Look before taking: a read shares the victim's line, a fetch-and-subtract takes it from its owner. */
        while (__atomic_load_n(&victim->length, __ATOMIC_RELAXED) > 0 &&
               __atomic_fetch_sub(&victim->length, 1, __ATOMIC_ACQ_REL) > 0) {
            run_tile(pool, __atomic_sub_fetch(&victim->end, 1, __ATOMIC_RELAXED));
            ++stolen;
        }
    }
    *own_tiles += owned;
    *stolen_tiles += stolen;
}

/* Accounting's way: each thread runs its own share and steals nothing, so that the CPU time per thread says
 * how the op divides its work, not which thread the OS happened to run first (on a loaded machine a thread
 * that is running steals the share of one that is not, and every op looks serial). */
static void run_own_tiles(rl_threadpool *pool, int32_t self) {
    rl_tile_range *own = &pool->ranges[self];
    while (__atomic_fetch_sub(&own->length, 1, __ATOMIC_ACQ_REL) > 0)
        run_tile(pool, __atomic_fetch_add(&own->start, 1, __ATOMIC_RELAXED));
}

static void run_tiles(rl_threadpool *pool, int32_t self) {
    int64_t *accounting = pool->accounting;
    if (!accounting) {
#ifdef RL_POOL_TRACE
        int64_t *tiles = self ? &pool->worker_trace[self].tiles : &pool->caller_trace.tiles;
        int64_t *stolen = self ? &pool->worker_trace[self].stolen : &pool->caller_trace.stolen;
        run_tiles_unaccounted(pool, self, tiles, stolen);
#else
        int64_t tiles = 0, stolen = 0;
        run_tiles_unaccounted(pool, self, &tiles, &stolen);
#endif
        return;
    }
    /* The caller's work is its CPU time over the whole op less its waits (plan_invoke.c), so its share needs no
     * clock of its own: a CPU-time clock read is a system call (1.6 us in a loaded VM), and two more per job
     * on the caller alone made every parallel op look 3 us busier there than on its workers. */
    if (self == 0) {
        run_own_tiles(pool, self);
        return;
    }
    const int64_t start = thread_cpu_ns();
    run_own_tiles(pool, self);
    /* Each slot has one writer; the caller reads them after the job's `active` count says every worker is out. */
    __atomic_add_fetch(&accounting[self], thread_cpu_ns() - start, __ATOMIC_RELAXED);
}

/* Whether every thread's share has been claimed (accounting: the caller keeps the job open until then). */
static int all_claimed(rl_threadpool *pool) {
    for (int32_t k = 0; k < pool->threads; ++k)
        if (__atomic_load_n(&pool->ranges[k].length, __ATOMIC_ACQUIRE) > 0) return 0;
    return 1;
}

typedef struct rl_worker_start {
    rl_threadpool *pool;
    int32_t index;
} rl_worker_start;

static void *worker_main(void *arg) {
    rl_threadpool *pool = ((rl_worker_start *)arg)->pool;
    const int32_t self = ((rl_worker_start *)arg)->index;
    uint64_t seen = 0;
    for (;;) {
        uint64_t now = __atomic_load_n(&pool->job.generation, __ATOMIC_ACQUIRE);
        int64_t start = 0;
        for (int spin = 0; now == seen && keep_spinning(&start, spin); ++spin) {
            spin_pause();
            now = __atomic_load_n(&pool->job.generation, __ATOMIC_ACQUIRE);
        }
        if (now == seen) { /* nothing for a while: sleep until the caller publishes a job */
#ifdef RL_POOL_TRACE
            pool->worker_trace[self].slept++;
#endif
            /* Announce, then look again: the caller stores the generation, then looks at the word, so one of the
             * two sees the other (both sequentially consistent) and no wake-up is lost; the kernel sleeps only
             * while the word still reads 1, so a wake between the look and the sleep is not lost either. */
            int32_t *word = &pool->sleep[self].state;
            __atomic_store_n(word, 1, __ATOMIC_SEQ_CST);
            while ((now = __atomic_load_n(&pool->job.generation, __ATOMIC_SEQ_CST)) == seen) futex_wait(word, 1);
            __atomic_store_n(word, 0, __ATOMIC_SEQ_CST);
        }
        if (__atomic_load_n(&pool->stopping, __ATOMIC_ACQUIRE)) return NULL;
        seen = now;
        /* Check in, then look whether the job is still open: the caller closes it once every tile is claimed
         * and then waits only for the threads that checked in, so a worker the OS has not scheduled yet never
         * holds up an op (the caller takes its tiles instead). A late worker may join a newer job than the one
         * it woke for; joining is harmless, tiles are claimed atomically. */
        __atomic_add_fetch(&pool->active, 1, __ATOMIC_SEQ_CST);
#ifdef RL_POOL_TRACE
        rl_worker_trace *trace = &pool->worker_trace[self];
        if (__atomic_load_n(&pool->job.open, __ATOMIC_SEQ_CST)) {
            const int64_t joined = monotonic_ns();
            const int64_t latency = joined - __atomic_load_n(&pool->publish_ns, __ATOMIC_RELAXED);
            int bucket = 0;
            for (int64_t edge = 1000; bucket < RL_TRACE_BUCKETS - 1 && latency >= edge; edge *= 4) ++bucket;
            trace->joined++;
            trace->latency_ns += latency;
            trace->latency_buckets[bucket]++;
            run_tiles(pool, self);
            trace->busy_ns += monotonic_ns() - joined;
        } else {
            trace->late++;
        }
#else
        if (__atomic_load_n(&pool->job.open, __ATOMIC_SEQ_CST)) run_tiles(pool, self);
#endif
        if (__atomic_sub_fetch(&pool->active, 1, __ATOMIC_SEQ_CST) == 0 &&
            __atomic_load_n(&pool->caller_waiting, __ATOMIC_SEQ_CST))
            futex_wake(&pool->active, 1);
    }
}

rl_threadpool *rl_threadpool_create(int32_t threads) {
    if (threads <= 1) return NULL;
    void *memory = NULL; /* aligned: the job and the counters each own their cache lines */
    if (posix_memalign(&memory, 64, sizeof(rl_threadpool)) != 0) return NULL;
    rl_threadpool *pool = (rl_threadpool *)memset(memory, 0, sizeof(rl_threadpool));
    pool->workers = (pthread_t *)calloc((size_t)threads - 1, sizeof(pthread_t));
    pool->starts = (rl_worker_start *)calloc((size_t)threads - 1, sizeof(rl_worker_start));
    void *ranges = NULL;
    if (posix_memalign(&ranges, 64, sizeof(rl_tile_range) * (size_t)threads) != 0) ranges = NULL;
    pool->ranges = (rl_tile_range *)ranges;
    void *words = NULL;
    if (posix_memalign(&words, 64, sizeof(rl_sleep_word) * (size_t)threads) != 0) words = NULL;
    pool->sleep = words ? (rl_sleep_word *)memset(words, 0, sizeof(rl_sleep_word) * (size_t)threads) : NULL;
#ifdef RL_POOL_TRACE
    void *traces = NULL;
    if (posix_memalign(&traces, 64, sizeof(rl_worker_trace) * (size_t)threads) != 0) return NULL;
    pool->worker_trace = (rl_worker_trace *)memset(traces, 0, sizeof(rl_worker_trace) * (size_t)threads);
#endif
    if (!pool->workers || !pool->starts || !pool->ranges || !pool->sleep) {
        free(pool->workers);
        free(pool->starts);
        free(pool->ranges);
        free(pool->sleep);
        free(pool);
        return NULL;
    }
    pool->threads = 1;
    for (int32_t k = 0; k < threads - 1; ++k) {
        pool->starts[k] = (rl_worker_start){.pool = pool, .index = k + 1};
        if (pthread_create(&pool->workers[k], NULL, worker_main, &pool->starts[k]) != 0) break;
        pool->threads++;
    }
    if (pool->threads == 1) {
        rl_threadpool_destroy(pool);
        return NULL;
    }
    return pool;
}

#ifdef RL_POOL_TRACE
/* One line per pool, key=value, appended to $RILLET_POOL_TRACE (bench/pool_trace.py reads it). */
static void write_trace(const rl_threadpool *pool) {
    const char *path = getenv("RILLET_POOL_TRACE");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (!f) return;
    const rl_caller_trace *c = &pool->caller_trace;
    fprintf(f, "threads=%d jobs=%lld woken=%lld wake_ns=%lld tiles0=%lld stolen0=%lld own_ns=%lld join_ns=%lld "
               "gap_ns=%lld gaps=%lld idles=%lld after_idle_jobs=%lld after_idle_ns=%lld",
            (int)pool->threads, (long long)c->jobs, (long long)c->woken, (long long)c->wake_ns, (long long)c->tiles,
            (long long)c->stolen, (long long)c->own_ns, (long long)c->join_ns, (long long)c->gap_ns, (long long)c->gaps,
            (long long)c->idles, (long long)c->after_idle_jobs, (long long)c->after_idle_ns);
    for (int32_t k = 1; k < pool->threads; ++k) {
        const rl_worker_trace *w = &pool->worker_trace[k];
        fprintf(f, " joined%d=%lld late%d=%lld slept%d=%lld tiles%d=%lld stolen%d=%lld busy_ns%d=%lld "
                   "latency_ns%d=%lld",
                (int)k, (long long)w->joined, (int)k, (long long)w->late, (int)k, (long long)w->slept, (int)k,
                (long long)w->tiles, (int)k, (long long)w->stolen, (int)k, (long long)w->busy_ns, (int)k,
                (long long)w->latency_ns);
        for (int b = 0; b < RL_TRACE_BUCKETS; ++b)
            fprintf(f, " lat%d_%d=%lld", (int)k, b, (long long)w->latency_buckets[b]);
    }
    fputc('\n', f);
    fclose(f);
}
#endif

void rl_threadpool_destroy(rl_threadpool *pool) {
    if (!pool) return;
    __atomic_store_n(&pool->stopping, 1, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&pool->job.generation, 1, __ATOMIC_SEQ_CST); /* spinning workers see it too */
    for (int32_t k = 1; k < pool->threads; ++k) {
        __atomic_store_n(&pool->sleep[k].state, 0, __ATOMIC_SEQ_CST);
        futex_wake(&pool->sleep[k].state, 1);
    }
    for (int32_t k = 0; k < pool->threads - 1; ++k) pthread_join(pool->workers[k], NULL);
#ifdef RL_POOL_TRACE
    write_trace(pool);
    free(pool->worker_trace);
#endif
    free(pool->workers);
    free(pool->starts);
    free(pool->ranges);
    free(pool->sleep);
    free(pool);
}

int32_t rl_threadpool_threads(const rl_threadpool *pool) { return pool ? pool->threads : 1; }

void rl_threadpool_set_accounting(rl_threadpool *pool, int64_t *thread_ns) {
    if (pool) pool->accounting = thread_ns;
}

/* The caller's end of a job: wait until every worker that checked in is out. */
static void wait_for_workers(rl_threadpool *pool) {
    int64_t start = 0;
    for (int spin = 0; __atomic_load_n(&pool->active, __ATOMIC_ACQUIRE) > 0 && keep_spinning(&start, spin); ++spin)
        spin_pause();
    /* Announce, then look: a worker decrements `active`, then looks at `caller_waiting` (sequentially consistent
     * both), and the kernel sleeps only while `active` still holds the count read. */
    __atomic_store_n(&pool->caller_waiting, 1, __ATOMIC_SEQ_CST);
    int32_t active;
    while ((active = __atomic_load_n(&pool->active, __ATOMIC_SEQ_CST)) > 0) futex_wait(&pool->active, active);
    __atomic_store_n(&pool->caller_waiting, 0, __ATOMIC_SEQ_CST);
}

/* Whether a worker sleeps that no wake has reached yet (a load per worker: their words are written only
 * around sleeping, so the caller's copies of their lines stay valid). */
static int any_sleeper(rl_threadpool *pool) {
    for (int32_t k = 1; k < pool->threads; ++k)
        if (__atomic_load_n(&pool->sleep[k].state, __ATOMIC_SEQ_CST) == 1) return 1;
    return 0;
}

/* Wakes every worker asleep that no wake has reached yet. */
static void wake_sleepers(rl_threadpool *pool) {
    for (int32_t k = 1; k < pool->threads; ++k) {
        int32_t *word = &pool->sleep[k].state;
        if (__atomic_load_n(word, __ATOMIC_SEQ_CST) == 1 && __atomic_exchange_n(word, 0, __ATOMIC_SEQ_CST) == 1) {
            futex_wake(word, 1);
        }
    }
}

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
    const size_t tiles = tiles_i * tiles_j;
    pool->job.fn = fn;
    pool->job.context = context;
    pool->job.range_i = range_i;
    pool->job.range_j = range_j;
    pool->job.tile_i = tile_i;
    pool->job.tile_j = tile_j;
    for (int32_t k = 0; k < pool->threads; ++k) {
        pool->ranges[k].start = tiles * (size_t)k / (size_t)pool->threads;
        pool->ranges[k].end = tiles * (size_t)(k + 1) / (size_t)pool->threads;
        pool->ranges[k].length = (ptrdiff_t)(pool->ranges[k].end - pool->ranges[k].start);
    }
#ifdef RL_POOL_TRACE
    rl_caller_trace *trace = &pool->caller_trace;
    const int64_t published = monotonic_ns();
    const int64_t gap = trace->last_joined_ns ? published - trace->last_joined_ns : RL_TRACE_IDLE_NS;
    const int after_idle = gap >= RL_TRACE_IDLE_NS;
    if (after_idle) {
        trace->idles++;
    } else {
        trace->gaps++;
        trace->gap_ns += gap;
    }
    trace->jobs++;
    __atomic_store_n(&pool->publish_ns, published, __ATOMIC_RELAXED);
#endif
    __atomic_store_n(&pool->job.open, 1, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&pool->job.generation, 1, __ATOMIC_SEQ_CST);
    int64_t *accounting = pool->accounting;
    /* Accounting counts a wake-up as waiting: a futex wake costs the caller 6-7 us of CPU on this VM, and how
     * often a worker has polled its whole 200 us and slept says how the machine is loaded (more runnable
     * threads than cores), not how an op divides its work. */
    if (any_sleeper(pool)) {
        const int64_t wake_start = accounting ? thread_cpu_ns() : 0;
#ifdef RL_POOL_TRACE
        const int64_t wake_clock = monotonic_ns();
#endif
        wake_sleepers(pool);
#ifdef RL_POOL_TRACE
        trace->woken++;
        trace->wake_ns += monotonic_ns() - wake_clock;
#endif
        if (accounting) accounting[pool->threads] += thread_cpu_ns() - wake_start;
    }
    run_tiles(pool, 0); /* returns once every tile is claimed: the caller steals whatever the workers have not */
    if (!accounting) {
        __atomic_store_n(&pool->job.open, 0, __ATOMIC_SEQ_CST);
#ifdef RL_POOL_TRACE
        const int64_t own_done = monotonic_ns();
        trace->own_ns += own_done - published;
        wait_for_workers(pool);
        trace->last_joined_ns = monotonic_ns();
        trace->join_ns += trace->last_joined_ns - own_done;
        if (after_idle) {
            trace->after_idle_jobs++;
            trace->after_idle_ns += trace->last_joined_ns - published;
        }
#else
        wait_for_workers(pool);
#endif
        return;
    }
    const int64_t start = thread_cpu_ns();
    while (!all_claimed(pool)) sched_yield(); /* the workers' shares wait for them, however late they run */
    __atomic_store_n(&pool->job.open, 0, __ATOMIC_SEQ_CST);
    wait_for_workers(pool);
    accounting[pool->threads] += thread_cpu_ns() - start;
}
