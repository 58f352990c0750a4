/* zeroed_memory.c — see zeroed_memory.h. */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS and MAP_POPULATE */
#endif
#define _POSIX_C_SOURCE 200112L
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "zeroed_memory.h"

/* Below this a page fault or two costs less than a system call. */
#define RL_MAP_THRESHOLD (256 * 1024)

rl_zeroed_block rl_zeroed_alloc(size_t bytes) {
    rl_zeroed_block block = {NULL, 0};
    if (bytes == 0) bytes = 1;
#if defined(__linux__) && defined(MAP_POPULATE) && defined(MAP_ANONYMOUS)
    if (bytes >= RL_MAP_THRESHOLD) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (p != MAP_FAILED) {
            block.base = p;
            block.mapped = bytes;
            return block;
        }
    }
#endif
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes) != 0) return block;
    memset(p, 0, bytes);
    block.base = p;
    return block;
}

void rl_zeroed_free(rl_zeroed_block *block) {
#if defined(__linux__)
    if (block->mapped) {
        munmap(block->base, block->mapped);
        block->base = NULL;
        block->mapped = 0;
        return;
    }
#endif
    free(block->base);
    block->base = NULL;
}
