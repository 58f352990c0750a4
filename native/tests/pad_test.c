/* pad_test.c — xx_pad (pad.h) against the specification xx_pad_ref on random shapes and paddings: ranks 0-5,
 * axes of 0-5 elements, pads of 0-3, element sizes 1, 2, 3, 4, 8 and 16, pad values whose bytes are alike (a
 * memset) or not, the whole output in one call and in random pieces of the outer axis (the thread split and
 * the bands), and a guard after the output that nothing may touch. Exit status 0 when all agree. */
#include "kernel_tester.h" /* first: it sets _DEFAULT_SOURCE */

#include "kernels.h"
#include "pad.h"

enum { GUARD = 64 };

static rng random_state = {0x9e3779b97f4a7c15u};
static int64_t below(int64_t n) { return n <= 0 ? 0 : (int64_t)(rng_next(&random_state) % (uint64_t)n); }

static int one_case(int case_index) {
    static const size_t sizes[] = {1, 2, 3, 4, 8, 16};
    const int32_t rank = (int32_t)below(6);
    const size_t elem = sizes[below(6)];
    int64_t in_dims[8], out_dims[8], in_count = 1, out_count = 1;
    int32_t before[8], after[8];
    const int wide = below(4) == 0; /* some long rows: memcpy and memset paths */
    for (int32_t d = 0; d < rank; ++d) {
        in_dims[d] = below(6) + (wide && d == rank - 1 ? 40 : 0);
        if (below(8) == 0) in_dims[d] = 0;
        before[d] = below(2) ? 0 : (int32_t)below(4);
        after[d] = below(2) ? 0 : (int32_t)below(4);
        out_dims[d] = in_dims[d] + before[d] + after[d];
        in_count *= in_dims[d];
        out_count *= out_dims[d];
    }
    unsigned char value[16];
    const int alike = below(2);
    for (size_t k = 0; k < elem; ++k) value[k] = (unsigned char)(alike ? 0xA5 : rng_next(&random_state));
    unsigned char *x = malloc((size_t)in_count * elem + 1), *want = malloc((size_t)out_count * elem + 1);
    unsigned char *got = malloc((size_t)out_count * elem + GUARD);
    for (int64_t i = 0; i < in_count * (int64_t)elem; ++i) x[i] = (unsigned char)rng_next(&random_state);
    memset(want, 0x5A, (size_t)out_count * elem + 1);
    if (out_count > 0) xx_pad_ref(rank, in_dims, before, out_dims, elem, value, x, want);
    rl_pad_layout layout;
    rl_pad_layout_of(rank, in_dims, before, after, elem, &layout);
    int64_t layout_count = 1;
    for (int32_t a = 0; a < layout.axes; ++a) layout_count *= layout.out_dims[a];
    int failed = layout_count != out_count;
    for (int split = 0; split < 2 && !failed; ++split) {
        memset(got, 0x5A, (size_t)out_count * elem + GUARD);
        const int64_t rows = layout.out_dims[0];
        for (int64_t first = 0; first < rows;) {
            const int64_t count = split ? 1 + below(rows - first) : rows;
            xx_pad(&layout, value, x, got, first, count);
            first += count;
        }
        failed |= memcmp(got, want, (size_t)out_count * elem) != 0;
        for (size_t k = 0; k < GUARD; ++k) failed |= got[(size_t)out_count * elem + k] != 0x5A;
    }
    if (failed) {
        printf("FAIL case %d: rank %d, element %zu bytes, value bytes %s; dims/before/after:", case_index, rank, elem,
               alike ? "alike" : "mixed");
        for (int32_t d = 0; d < rank; ++d) printf(" %lld/%d/%d", (long long)in_dims[d], before[d], after[d]);
        printf(" (reduced to %d axes)\n", layout.axes);
    }
    free(x), free(want), free(got);
    return failed;
}

int main(void) {
    int failed = 0, cases = 0;
    for (; cases < 20000; ++cases) failed |= one_case(cases);
    printf("pad: %d cases %s\n", cases, failed ? "FAILED" : "ok");
    return failed;
}
