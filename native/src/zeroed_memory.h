/* zeroed_memory.h — zeroed, 64-byte aligned blocks for the plan's arena and op states.
 *
 * Preparing MobileNet touches ~4 MB of fresh memory (packed weights, indirection, arena); faulting it in
 * one page at a time was most of allocate_tensors' time (374 faults, ~1 ms in a VM). Large blocks are
 * mapped with their pages populated in one system call where the OS offers that (Linux), and need no memset:
 * fresh anonymous pages are zero. */
#ifndef RILLET_ZEROED_MEMORY_H
#define RILLET_ZEROED_MEMORY_H

#include <stddef.h>

#include "rillet.h" /* rl_block_cache */

typedef struct {
    void *base;
    size_t capacity; /* bytes the block holds (at least what was asked) */
    int mapped;      /* from mmap (released with munmap), else from calloc */
    void *allocation; /* what calloc returned (base is it rounded up to 64 bytes); base where mapped */
} rl_zeroed_block;


/* NULL base when out of memory. With a cache (or NULL: none), a block it kept serves the request if it fits,
 * zeroed again, and a freed block goes to it if there is room: see zeroed_memory.c. */
rl_zeroed_block rl_zeroed_alloc(rl_block_cache *cache, size_t bytes);
void rl_zeroed_free(rl_block_cache *cache, rl_zeroed_block *block);

#endif
