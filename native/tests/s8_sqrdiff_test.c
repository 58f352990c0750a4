/* s8_sqrdiff_test.c — the int8 SQUARED_DIFFERENCE row kernels (s8_vsqrdiff__scalar, s8_vsqrdiffc__scalar) bit
 * for bit against the specification, s8_squared_difference_ref, on every pair of int8 codes: the kernels read
 * each operand's scaled value from a table, which the test fills with the reference's formula, for scale sets
 * that reach both ends of the multiplier range and zero points at both ends of int8. Built by
 * tests/native/test_s8_sqrdiff_kernels.py; prints "all passed" and exits 0, or names the first mismatch. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernels.h"
#include "quant.h"

enum { CODES = 256, PAIRS = CODES * CODES };

/* The op's prepare (abs_sqdiff_int8.c), as TFLite's PrepareSquaredDifference: 0 on success. */
static int prepare(double sa, int32_t za, double sb, int32_t zb, double so, int32_t zo,
                   rl_s8_squared_difference_params *p) {
    const double twice_max = 2.0 * (sa > sb ? sa : sb);
    p->zero_point[0] = za;
    p->zero_point[1] = zb;
    p->output_zero_point = zo;
    return rl_quantize_multiplier(sa / twice_max, &p->multiplier[0], &p->shift[0]) ||
           rl_quantize_multiplier(sb / twice_max, &p->multiplier[1], &p->shift[1]) ||
           rl_quantize_multiplier(twice_max * twice_max / ((double)(1 << 14) * so), &p->output_multiplier,
                                  &p->output_shift);
}

static void fill_table(const rl_s8_squared_difference_params *p, int input, int32_t *table) {
    for (int32_t v = -128; v < 128; ++v)
        table[v + 128] = rl_mul_by_quantized_multiplier((v - p->zero_point[input]) * (1 << 7), p->multiplier[input],
                                                        p->shift[input]);
}

/* A broadcast of one row of n outputs: b walks the row (b_stride 1) or stays on its one element (0). */
static rl_broadcast row_broadcast(int64_t n, int64_t b_stride) {
    rl_broadcast bc;
    memset(&bc, 0, sizeof bc);
    for (int d = 0; d < 8; ++d) bc.out_dims[d] = 1;
    bc.out_dims[7] = n;
    bc.a_strides[7] = 1;
    bc.b_strides[7] = b_stride;
    bc.count = n;
    return bc;
}

static int first_difference(const int8_t *got, const int8_t *want, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (got[i] != want[i]) return (int)i;
    return -1;
}

static int8_t a[PAIRS], b[PAIRS], want[PAIRS], got[PAIRS];

int main(void) {
    static const double sets[][6] = {
        {0.031, -7, 0.012, 19, 0.09, -128}, {0.5, 0, 0.002, -128, 0.0005, 3}, {0.02, 127, 0.02, -128, 2.0, 0},
        {0.002, -128, 0.5, 127, 0.3, 127},  {1e-4, 5, 3e-4, -5, 1e-7, -20},
    };
    int32_t scaled_a[CODES], scaled_b[CODES];
    for (int i = 0; i < PAIRS; ++i) {
        a[i] = (int8_t)(i / CODES - 128);
        b[i] = (int8_t)(i % CODES - 128);
    }
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; ++s) {
        const double *q = sets[s];
        rl_s8_squared_difference_params p;
        if (prepare(q[0], (int32_t)q[1], q[2], (int32_t)q[3], q[4], (int32_t)q[5], &p)) {
            printf("scale set %zu: a multiplier out of range\n", s);
            return 1;
        }
        fill_table(&p, 0, scaled_a);
        fill_table(&p, 1, scaled_b);
        const rl_s8_sqrdiff_row_params rows = {.scaled = {scaled_a, scaled_b},
                                               .output_zero_point = p.output_zero_point,
                                               .output_multiplier = p.output_multiplier,
                                               .output_shift = p.output_shift};
        rl_s8_sqrdiff_row_params swapped = rows;
        swapped.scaled[0] = scaled_b;
        swapped.scaled[1] = scaled_a;
        /* Two rows: every (a, b) pair. */
        rl_broadcast bc = row_broadcast(PAIRS, 1);
        s8_squared_difference_ref(&bc, &p, a, b, want);
        s8_vsqrdiff__scalar(PAIRS, a, b, got, &rows);
        int at = first_difference(got, want, PAIRS);
        if (at >= 0) {
            printf("s8_vsqrdiff__scalar, scale set %zu, a %d b %d: %d, the reference %d\n", s, a[at], b[at], got[at],
                   want[at]);
            return 1;
        }
        /* A row against one element, on either side: each b code against every a code. */
        bc = row_broadcast(CODES, 0);
        for (int code = 0; code < CODES; ++code) {
            const int8_t one = (int8_t)(code - 128);
            s8_squared_difference_ref(&bc, &p, b, &one, want);
            s8_vsqrdiffc__scalar(CODES, b, &one, got, &rows);
            if ((at = first_difference(got, want, CODES)) >= 0) {
                printf("s8_vsqrdiffc__scalar, scale set %zu, a %d b %d: %d, the reference %d\n", s, b[at], one, got[at],
                       want[at]);
                return 1;
            }
            /* The one element on the left: the op passes it second with the tables exchanged. */
            int8_t want_left[CODES];
            for (int i = 0; i < CODES; ++i) {
                rl_broadcast one_bc = row_broadcast(1, 1);
                s8_squared_difference_ref(&one_bc, &p, &one, b + i, want_left + i);
            }
            s8_vsqrdiffc__scalar(CODES, b, &one, got, &swapped);
            if ((at = first_difference(got, want_left, CODES)) >= 0) {
                printf("s8_vsqrdiffc__scalar exchanged, scale set %zu, a %d b %d: %d, the reference %d\n", s, one,
                       b[at], got[at], want_left[at]);
                return 1;
            }
        }
    }
    printf("all passed\n");
    return 0;
}
