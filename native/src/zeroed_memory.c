/* zeroed_memory.c — see zeroed_memory.h. */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS and MAP_POPULATE */
#endif
#define _POSIX_C_SOURCE 200112L
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "rillet.h"
#include "zeroed_memory.h"

/* Below this a page fault or two costs less than a system call. */
#define RL_MAP_THRESHOLD (256 * 1024)

/* Freed blocks kept for reuse (rl_block_cache_create). Readying the same model again (a reload, or one interpreter
 * after another) had the kernel clear and map every page of the packed weights, the op states and the arena once
 * more, and unmap them after (glibc trims its heap's top as eagerly): that was over half of float MobileNet's
 * reload, 1.9x LiteRT's time, where glibc's free lists hand LiteRT the memory its last interpreter returned. A
 * kept block is cleared with memset when reused, a fraction of faulting its pages in. Blocks under RL_KEPT_MIN
 * (two pages: glibc reuses those well) are not kept; at most RL_KEPT_BLOCKS blocks and the cache's byte limit
 * are; and a block serves only a request of at least half its size, so a small plan does not hold a large
 * block. The caller owns the cache, as the library holds no global state. */
#define RL_KEPT_MIN ((size_t)8 << 10)
#define RL_KEPT_BLOCKS 128

struct rl_block_cache {
    pthread_mutex_t mutex; /* plans on several threads share one cache */
    rl_zeroed_block blocks[RL_KEPT_BLOCKS];
    size_t bytes, max_bytes;
};

static void release(rl_zeroed_block block) {
#if defined(__linux__)
    if (block.mapped) {
        munmap(block.base, block.capacity);
        return;
    }
#endif
    free(block.allocation);
}

rl_block_cache *rl_block_cache_create(size_t max_bytes) {
    rl_block_cache *cache = (rl_block_cache *)calloc(1, sizeof *cache);
    if (cache == NULL) return NULL;
    if (pthread_mutex_init(&cache->mutex, NULL) != 0) {
        free(cache);
        return NULL;
    }
    cache->max_bytes = max_bytes;
    return cache;
}

void rl_block_cache_destroy(rl_block_cache *cache) {
    if (cache == NULL) return;
    for (int i = 0; i < RL_KEPT_BLOCKS; ++i)
        if (cache->blocks[i].base) release(cache->blocks[i]);
    pthread_mutex_destroy(&cache->mutex);
    free(cache);
}

/* The smallest kept block that fits `bytes` without wasting more than half of it, taken out of the list. */
static rl_zeroed_block take_kept(rl_block_cache *cache, size_t bytes) {
    rl_zeroed_block found = {NULL, 0, 0, NULL};
    pthread_mutex_lock(&cache->mutex);
    int best = -1;
    for (int i = 0; i < RL_KEPT_BLOCKS; ++i) {
        const size_t size = cache->blocks[i].capacity;
        if (cache->blocks[i].base && size >= bytes && size / 2 <= bytes &&
            (best < 0 || size < cache->blocks[best].capacity))
            best = i;
    }
    if (best >= 0) {
        found = cache->blocks[best];
        cache->bytes -= found.capacity;
        cache->blocks[best] = (rl_zeroed_block){NULL, 0, 0, NULL};
    }
    pthread_mutex_unlock(&cache->mutex);
    return found;
}

/* Keeps a freed block if there is room; returns 0 when the caller must release it. */
static int keep(rl_block_cache *cache, rl_zeroed_block block) {
    if (block.capacity < RL_KEPT_MIN) return 0;
    int done = 0;
    pthread_mutex_lock(&cache->mutex);
    const int room = block.capacity <= cache->max_bytes - cache->bytes; /* bytes never exceeds max_bytes */
    for (int i = 0; room && i < RL_KEPT_BLOCKS && !done; ++i) {
        if (cache->blocks[i].base == NULL) {
            cache->blocks[i] = block;
            cache->bytes += block.capacity;
            done = 1;
        }
    }
    pthread_mutex_unlock(&cache->mutex);
    return done;
}

rl_zeroed_block rl_zeroed_alloc(rl_block_cache *cache, size_t bytes) {
    rl_zeroed_block block = {NULL, 0, 0, NULL};
    if (bytes == 0) bytes = 1;
    if (cache != NULL && bytes >= RL_KEPT_MIN) {
        block = take_kept(cache, bytes);
        if (block.base != NULL) {
            memset(block.base, 0, bytes); /* the rest of the block is never handed out */
            return block;
        }
    }
#if defined(__linux__) && defined(MAP_POPULATE) && defined(MAP_ANONYMOUS)
    if (bytes >= RL_MAP_THRESHOLD) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (p != MAP_FAILED) return (rl_zeroed_block){p, bytes, 1, p};
    }
#endif
    /* calloc, not an aligned malloc and memset: glibc's calloc clears only memory that was in use before, and
     * much of a start's is fresh from the system, zero already (the memset was ~2M instructions of readying
     * MobileNetV2 1.0 int8 on x86). Rounded up to 64 bytes by hand, as calloc has no alignment. */
    if (bytes > SIZE_MAX - 63) return block;
    void *p = calloc(1, bytes + 63);
    if (p == NULL) return block;
    void *base = (void *)(((uintptr_t)p + 63) & ~(uintptr_t)63);
    return (rl_zeroed_block){base, bytes, 0, p};
}

void rl_zeroed_free(rl_block_cache *cache, rl_zeroed_block *block) {
    if (block->base != NULL && (cache == NULL || !keep(cache, *block))) release(*block);
    *block = (rl_zeroed_block){NULL, 0, 0, NULL};
}
