/* zeroed_memory.h — zeroed, 64-byte aligned blocks for the plan's arena and op states.
 *
 * Preparing MobileNet touches ~4 MB of fresh memory (packed weights, indirection, arena); faulting it in
 * one page at a time was most of allocate_tensors' time (374 faults, ~1 ms in a VM). Large blocks are
 * mapped with their pages populated in one system call where the OS offers that (Linux), and need no memset:
 * fresh anonymous pages are zero. */
#ifndef RILLET_ZEROED_MEMORY_H
#define RILLET_ZEROED_MEMORY_H

#include <stddef.h>

typedef struct {
    void *base;
    size_t mapped; /* bytes mapped (free with munmap), 0 when from malloc */
} rl_zeroed_block;

/* NULL base when out of memory. */
rl_zeroed_block rl_zeroed_alloc(size_t bytes);
void rl_zeroed_free(rl_zeroed_block *block);

#endif
