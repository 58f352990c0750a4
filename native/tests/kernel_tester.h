/* kernel_tester.h — what every micro-kernel tester in native/tests shares, so that each tester holds only its
 * cases: a seeded random generator, memory that ends where a PROT_NONE page begins (a read or write past a
 * buffer faults at once), a fault handler that names the case being run, whether this CPU runs a kernel path,
 * and the `main` that picks the path from argv[1] (exit status 0: all passed; 1: a failure, printed; 2: usage;
 * 77: this CPU lacks the path, its kernels compiled but not run).
 *
 * Header-only (static functions): each tester is one C file built with the library's sources and its own flags,
 * for x86, and cross-built for aarch64 and armv7 under qemu (tests/native/test_arm_kernels.py). Include it first:
 * it sets _DEFAULT_SOURCE (mmap's MAP_ANONYMOUS under -std=c99), which must come before any system header. */
#ifndef RILLET_KERNEL_TESTER_H
#define RILLET_KERNEL_TESTER_H

#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS under -std=c99 */
#endif
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cpu_features.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- random numbers: xorshift64, the state passed around (no globals), the same sequence on every target ---- */
typedef struct {
    uint64_t state;
} rng;

static inline uint32_t rng_next(rng *r) {
    r->state ^= r->state << 13;
    r->state ^= r->state >> 7;
    r->state ^= r->state << 17;
    return (uint32_t)(r->state >> 32);
}

/* A float in [-1, 1), 24 random bits. */
static inline float rng_uniform(rng *r) { return (float)((double)(rng_next(r) >> 8) / (double)(1 << 23) - 1.0); }

/* An integer in [lo, hi], both included. */
static inline int32_t rng_range(rng *r, int32_t lo, int32_t hi) {
    return lo + (int32_t)(rng_next(r) % (uint32_t)(hi - lo + 1));
}

static inline void rng_fill(rng *r, float *x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = rng_uniform(r);
}

/* ---- guarded memory ---- */

static inline size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

/* Blocks that each end exactly where a PROT_NONE page begins, all freed at once. */
enum { GUARD_MAX_BLOCKS = 512 };
typedef struct {
    void *maps[GUARD_MAX_BLOCKS];
    size_t sizes[GUARD_MAX_BLOCKS];
    size_t count;
} guard_set;

static inline void *guard_alloc(guard_set *g, size_t bytes) {
    const size_t page = page_size(), pages = (bytes + page - 1) / page, size = (pages + 1) * page;
    unsigned char *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED || g->count == GUARD_MAX_BLOCKS || mprotect(map + pages * page, page, PROT_NONE) != 0) {
        fprintf(stderr, "guard_alloc: out of memory\n");
        exit(2);
    }
    g->maps[g->count] = map;
    g->sizes[g->count++] = size;
    return map + pages * page - bytes;
}

static inline void guard_free_all(guard_set *g) {
    for (size_t i = 0; i < g->count; ++i) munmap(g->maps[i], g->sizes[i]);
    g->count = 0;
}

/* Slots reused case after case: each slot's readable pages (at least `bytes`), then a PROT_NONE page. */
typedef struct {
    char *base;
    size_t readable, slots; /* readable bytes per slot (whole pages) */
} guarded;

static inline guarded guarded_new(size_t slots, size_t bytes) {
    const size_t page = page_size();
    guarded g = {NULL, (bytes + page - 1) / page * page, slots};
    void *m = mmap(NULL, slots * (g.readable + page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    g.base = m;
    for (size_t i = 0; i < slots; ++i) mprotect(g.base + i * (g.readable + page) + g.readable, page, PROT_NONE);
    return g;
}

static inline void guarded_free(guarded *g) { munmap(g->base, g->slots * (g->readable + page_size())); }

/* `bytes` ending exactly where slot i's readable pages end. */
static inline void *guarded_end(const guarded *g, size_t i, size_t bytes) {
    return g->base + i * (g->readable + page_size()) + g->readable - bytes;
}

/* `count` floats ending exactly where slot i's readable pages end. */
static inline float *slot_tail(const guarded *g, size_t i, size_t count) {
    return (float *)guarded_end(g, i, count * sizeof(float));
}

/* A pointer into a PROT_NONE page: for indirection entries a kernel must never dereference. */
static inline const float *poison(const guarded *g) { return (const float *)(g->base + g->readable); }

/* ---- an int8 output between guard bytes: a write before or past it changes one ---- */

/* The output starts GUARD_BYTES into a block of n + 2 * GUARD_BYTES bytes, each first set to a fill byte. */
enum { GUARD_BYTES = 32 };

/* The first wrong byte of such a block (an output value other than expected[i], or a guard byte other than fill),
 * or SIZE_MAX when there is none. */
static inline size_t s8_block_mismatch(const unsigned char *block, size_t n, unsigned char fill,
                                       const int8_t *expected) {
    for (size_t i = 0; i < n + 2 * GUARD_BYTES; ++i) {
        const int inside = i >= GUARD_BYTES && i < GUARD_BYTES + n;
        if (inside ? (int8_t)block[i] != expected[i - GUARD_BYTES] : block[i] != fill) return i;
    }
    return SIZE_MAX;
}

/* The line under a failing case's: what s8_block_mismatch found at byte `at` (`item`: what an output value is). */
static inline void report_s8_block_mismatch(const unsigned char *block, size_t n, size_t at, const int8_t *expected,
                                            const char *item) {
    if (at >= GUARD_BYTES && at < GUARD_BYTES + n)
        fprintf(stderr, "  %s %zu: got %d, expected %d\n", item, at - GUARD_BYTES, (int8_t)block[at],
                expected[at - GUARD_BYTES]);
    else
        fprintf(stderr, "  wrote outside its output: byte %zu (guard %d)\n", at, GUARD_BYTES);
}

/* ---- faults: an over-read or over-write faults on a guard page before any check runs ---- */

/* The case being run (snprintf into it before each case), printed if it faults. */
static char running[200];

static inline void report_fault(int sig) {
    static const char prefix[] = "FAIL (memory fault: a kernel read or wrote past its buffers) in ";
    (void)sig;
    if (write(STDOUT_FILENO, prefix, sizeof prefix - 1) < 0 || write(STDOUT_FILENO, running, strlen(running)) < 0 ||
        write(STDOUT_FILENO, "\n", 1) < 0)
        _exit(1);
    _exit(1);
}

/* ---- kernel paths ---- */

/* Whether this CPU runs `isa`'s kernels: HWCAP for NEON (as dispatch reads it), cpuid on x86. */
static inline int cpu_has(rl_isa isa) {
#if RL_HAVE_NEON_KERNELS
    if (isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT) return rl_isa_supported(isa);
#endif
#if (defined(__x86_64__) || defined(_M_X64)) && defined(__GNUC__)
    __builtin_cpu_init();
#ifdef RL_EMULATED_AVX512
    /* built against native/tests/avx512_emulation: the AVX-512 paths need only AVX2 */
    if (isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) return cpu_has(RL_ISA_AVX2);
#endif
    switch (isa) {
    case RL_ISA_AVX2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case RL_ISA_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
    case RL_ISA_AVX512VNNI: return cpu_has(RL_ISA_AVX512) && __builtin_cpu_supports("avx512vnni");
    default: return isa == RL_ISA_SCALAR;
    }
#else
    return isa == RL_ISA_SCALAR;
#endif
}

static const struct {
    const char *name;
    rl_isa isa;
} ISA_NAMES[] = {{"scalar", RL_ISA_SCALAR}, {"avx2", RL_ISA_AVX2},   {"avx512", RL_ISA_AVX512},
                 {"avx512vnni", RL_ISA_AVX512VNNI}, {"neon", RL_ISA_NEON}, {"neondot", RL_ISA_NEONDOT}};

static inline int parse_isa(const char *name, rl_isa *isa) {
    for (size_t i = 0; i < COUNT(ISA_NAMES); ++i) {
        if (strcmp(name, ISA_NAMES[i].name) == 0) {
            *isa = ISA_NAMES[i].isa;
            return 1;
        }
    }
    return 0;
}

/* One tester: `run` checks the path's kernels (returns 0 when all passed, printing what failed); `runs` says
 * whether this CPU runs the path (NULL: cpu_has; a tester whose path borrows another's kernels passes its own). */
typedef struct {
    int (*run)(rl_isa isa, const char *name);
    int (*runs)(rl_isa isa);
} kernel_tester;

/* The tester's main: `tester argv[1]` for one path. */
static inline int kernel_tester_main(int argc, char **argv, kernel_tester tester) {
    rl_isa isa;
    if (argc != 2 || !parse_isa(argv[1], &isa)) {
        fprintf(stderr, "usage: %s scalar|avx2|avx512|avx512vnni|neon|neondot\n", argv[0]);
        return 2;
    }
    if (!(tester.runs ? tester.runs : cpu_has)(isa)) {
        printf("SKIP: this CPU lacks %s; its kernels were compiled but not run\n", argv[1]);
        return 77;
    }
    setvbuf(stdout, NULL, _IONBF, 0); /* a fault's _exit must not lose the lines already printed */
    signal(SIGSEGV, report_fault);
    signal(SIGBUS, report_fault);
    return tester.run(isa, argv[1]) ? 1 : 0;
}

#endif /* RILLET_KERNEL_TESTER_H */
