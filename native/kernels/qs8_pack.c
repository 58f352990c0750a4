/* qs8_pack.c — packs int8 GEMM/IGEMM weights, and depthwise biases and scales (depthwise kernels read the
 * model's weights in place), into the layouts of gemm.h and dwconv.h, once, at prepare.
 *
 * The input zero point (and a kernel's input offset) is folded into each int32 bias here so the kernels'
 * inner loops multiply raw input bytes. That folding wraps modulo 2^32 like the kernels' accumulation, so it
 * is done in uint32 (signed overflow would be undefined behaviour); the kernels' total is then the same
 * 32 bits as bias + sum((x - zero_point) * w). Fields are written with memcpy: a panel's int32 and float
 * fields are 4-byte aligned only when nr * kr (ct) is a multiple of 4, which every config keeps.
 */
#include <string.h>

#include "dwconv.h"
#include "gemm.h"

static size_t round_up(size_t x, size_t multiple) { return (x + multiple - 1) / multiple * multiple; }

static void store_u32(unsigned char *p, uint32_t v) { memcpy(p, &v, sizeof v); }

size_t rl_qs8_gemm_panel_width(size_t n, size_t n0, size_t nr) {
    return n - n0 < nr && nr == 16 && n - n0 <= 8 ? 8 : nr;
}

size_t rl_qs8_gemm_packed_size(size_t n, size_t ks, size_t kc, size_t nr, size_t kr) {
    const size_t whole = n / nr * nr;
    const size_t columns = whole + (whole < n ? rl_qs8_gemm_panel_width(n, whole, nr) : 0);
    return columns * (sizeof(int32_t) + ks * round_up(kc, kr) + sizeof(float));
}

/* Byte i of row j of an 8x8 byte block (a[j], little-endian) to byte j of a[i]: three stages of swapping the
 * off-diagonal blocks (4x4, then 2x2, then single bytes) with masks and shifts. */
static void transpose_8x8_bytes(uint64_t a[8]) {
    for (size_t j = 0; j < 4; ++j) {
        const uint64_t t = ((a[j] >> 32) ^ a[j + 4]) & 0x00000000FFFFFFFFull;
        a[j] ^= t << 32;
        a[j + 4] ^= t;
    }
    static const size_t upper[4] = {0, 1, 4, 5};
    for (size_t u = 0; u < 4; ++u) {
        const size_t j = upper[u];
        const uint64_t t = ((a[j] >> 16) ^ a[j + 2]) & 0x0000FFFF0000FFFFull;
        a[j] ^= t << 16;
        a[j + 2] ^= t;
    }
    for (size_t j = 0; j < 8; j += 2) {
        const uint64_t t = ((a[j] >> 8) ^ a[j + 1]) & 0x00FF00FF00FF00FFull;
        a[j] ^= t << 8;
        a[j + 1] ^= t;
    }
}

/* The same for a 4x4 block of 2-byte groups (a[0..3]) and a 2x2 block of 4-byte groups (a[0..1]): the last
 * two stages, and the last one, of the 8x8 transpose at those widths. */
static void transpose_4x4_pairs(uint64_t a[4]) {
    for (size_t j = 0; j < 2; ++j) {
        const uint64_t t = ((a[j] >> 32) ^ a[j + 2]) & 0x00000000FFFFFFFFull;
        a[j] ^= t << 32;
        a[j + 2] ^= t;
    }
    for (size_t j = 0; j < 4; j += 2) {
        const uint64_t t = ((a[j] >> 16) ^ a[j + 1]) & 0x0000FFFF0000FFFFull;
        a[j] ^= t << 16;
        a[j + 1] ^= t;
    }
}

static void transpose_2x2_quads(uint64_t a[2]) {
    const uint64_t t = ((a[0] >> 32) ^ a[1]) & 0x00000000FFFFFFFFull;
    a[0] ^= t << 32;
    a[1] ^= t;
}

/* The weights of a full panel (nr <= 16 columns, all below n) whose rows are whole kr-byte groups
 * (kc % kr == 0), and each column's weight sum (wrapping, into sums). Row j's depth = ks * kc bytes are then its
 * groups in order, and the panel is their transpose, group by group: 8 bytes of every row at a time, the rows'
 * words transposed in blocks of 8 / kr rows (a block's word g is then group g of those rows: 8 bytes of the
 * panel's row of groups), where it had been a group at a time. The sums stay a plain loop over each row, which
 * the compiler vectorises (NEON's widening adds: summing the words in 64-bit lanes instead cost aarch64 more). */
static unsigned char *pack_full_panel(size_t nr, size_t kr, size_t depth, const int8_t *rows, unsigned char *out,
                                      uint32_t *sums) {
    const size_t groups = depth / kr, row_bytes = nr * kr;
    size_t g = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (nr <= 16 && (kr == 1 || kr == 2 || kr == 4 || kr == 8 || kr == 16) && nr % (kr < 8 ? 8 / kr : 1) == 0) {
        const size_t words = depth / 8;
        /* A block of BLOCK rows, word by word: BLOCK loads, one transpose, BLOCK stores (KR < 8), or
         * each word to its place in its group's row of the panel (KR 8 or 16, BLOCK 1). */
#define RL_PACK_WORDS(KR, BLOCK, TRANSPOSE)                                                                     \
    for (size_t j0 = 0; j0 < nr; j0 += (BLOCK)) {                                                           \
        const int8_t *from = rows + j0 * depth;                                                             \
        for (size_t word = 0; word < words; ++word) {                                                       \
            uint64_t a[8];                                                                                  \
            for (size_t i = 0; i < (BLOCK); ++i) memcpy(&a[i], from + i * depth + word * 8, 8);             \
            TRANSPOSE;                                                                                      \
            if ((KR) < 8)                                                                                   \
                for (size_t i = 0; i < (BLOCK); ++i)                                                        \
                    memcpy(out + (word * 8 / (KR) + i) * row_bytes + j0 * (KR), &a[i], 8);                  \
            else                                                                                            \
                memcpy(out + word * 8 / (KR) * row_bytes + j0 * (KR) + word * 8 % (KR), &a[0], 8);          \
        }                                                                                                   \
    }
        switch (kr) {
        case 1: RL_PACK_WORDS(1, 8, transpose_8x8_bytes(a)); break;
        case 2: RL_PACK_WORDS(2, 4, transpose_4x4_pairs(a)); break;
        case 4: RL_PACK_WORDS(4, 2, transpose_2x2_quads(a)); break;
        case 8: RL_PACK_WORDS(8, 1, (void)0); break;
        default: RL_PACK_WORDS(16, 1, (void)0); break;
        }
#undef RL_PACK_WORDS
        g = words * 8 / kr; /* the bytes the words covered: a multiple of 8, and of kr where kr is 16 (depth is) */
        out += g * row_bytes;
    }
#endif
    for (size_t j = 0; j < nr; ++j) {
        uint32_t sum = 0;
        for (size_t k = 0; k < depth; ++k) sum += (uint32_t)(int32_t)rows[j * depth + k];
        sums[j] = sum;
    }
#define RL_PACK_GROUPS(KR)                                                                   \
    for (; g < groups; ++g)                                                                  \
        for (size_t j = 0; j < nr; ++j, out += (KR)) memcpy(out, rows + j * depth + g * (KR), (KR))
    switch (kr) { /* fixed sizes: one load and one store each, never a call */
    case 1: RL_PACK_GROUPS(1); break;
    case 2: RL_PACK_GROUPS(2); break;
    case 4: RL_PACK_GROUPS(4); break;
    case 8: RL_PACK_GROUPS(8); break;
    case 16: RL_PACK_GROUPS(16); break; /* aarch64's 2x8c16 tiles */
    default: RL_PACK_GROUPS(kr);
    }
#undef RL_PACK_GROUPS
    return out;
}

static void pack_gemm(rl_qs8_gemm_packw_panel_fn packw_panel, size_t n, size_t ks, size_t kc, size_t nr, size_t kr,
                      int32_t input_zero_point, int32_t input_offset, const int8_t *w, const int32_t *bias,
                      const float *scales, void *packed) {
    const size_t kcr = round_up(kc, kr);
    const uint32_t zero_point = (uint32_t)input_zero_point + (uint32_t)input_offset;
    unsigned char *out = packed;
    for (size_t n0 = 0; n0 < n; n0 += nr) {
        const size_t width = rl_qs8_gemm_panel_width(n, n0, nr);
        if (n0 + width <= n && kc % kr == 0 && width <= 16) {
            /* The biases go in front of the weights, folded with the sums that packing them gives. */
            unsigned char *biases = out;
            uint32_t sums[16];
            if (packw_panel != NULL && width == nr) {
                packw_panel(ks * kc, w + n0 * ks * kc, out + width * sizeof(uint32_t), sums);
                out += width * (sizeof(uint32_t) + ks * kc);
            } else {
                out = pack_full_panel(width, kr, ks * kc, w + n0 * ks * kc, out + width * sizeof(uint32_t), sums);
            }
            for (size_t j = 0; j < width; ++j)
                store_u32(biases + j * sizeof(uint32_t), (bias ? (uint32_t)bias[n0 + j] : 0u) - zero_point * sums[j]);
        } else {
            for (size_t j = 0; j < width; ++j) {
                const size_t col = n0 + j;
                uint32_t folded = 0;
                if (col < n) {
                    uint32_t sum = 0;
                    for (size_t k = 0; k < ks * kc; ++k) sum += (uint32_t)(int32_t)w[col * ks * kc + k];
                    folded = (bias ? (uint32_t)bias[col] : 0u) - zero_point * sum;
                }
                store_u32(out, folded);
                out += sizeof(uint32_t);
            }
            /* Each kr-byte group is a run of one weight row: copied whole, the zero padding (past kc, past n)
             * written apart. A start packs every GEMM's weights, and a byte-by-byte loop that tests both bounds
             * per byte was most of a small model's prepare. */
            for (size_t p = 0; p < ks; ++p) {
                for (size_t k0 = 0; k0 < kcr; k0 += kr) {
                    const size_t run = kc - k0 < kr ? kc - k0 : kr; /* k0 < kcr: at least one byte of the row */
                    for (size_t j = 0; j < width; ++j, out += kr) {
                        const size_t col = n0 + j;
                        if (col >= n) {
                            for (size_t r = 0; r < kr; ++r) out[r] = 0;
                            continue;
                        }
                        const int8_t *row = w + (col * ks + p) * kc + k0;
                        if (run == kr) {
                            switch (kr) { /* fixed sizes: one load and one store each, never a call */
                            case 1: *out = (unsigned char)*row; break;
                            case 2: memcpy(out, row, 2); break;
                            case 4: memcpy(out, row, 4); break;
                            case 8: memcpy(out, row, 8); break;
                            case 16: memcpy(out, row, 16); break;
                            default:
                                for (size_t r = 0; r < kr; ++r) out[r] = (unsigned char)row[r];
                            }
                        } else {
                            for (size_t r = 0; r < kr; ++r) out[r] = r < run ? (unsigned char)row[r] : 0;
                        }
                    }
                }
            }
        }
        for (size_t j = 0; j < width; ++j) {
            const float scale = n0 + j < n ? scales[n0 + j] : 0.0f;
            memcpy(out, &scale, sizeof scale);
            out += sizeof scale;
        }
    }
}

void rl_pack_qs8_gemm(size_t n, size_t ks, size_t kc, size_t nr, size_t kr, int32_t input_zero_point,
                      int32_t input_offset, const int8_t *w, const int32_t *bias, const float *scales, void *packed) {
    pack_gemm(NULL, n, ks, kc, nr, kr, input_zero_point, input_offset, w, bias, scales, packed);
}

void rl_pack_qs8_gemm_for(const rl_qs8_gemm_config *config, size_t n, size_t ks, size_t kc, int32_t input_zero_point,
                          const int8_t *w, const int32_t *bias, const float *scales, void *packed) {
    pack_gemm(config->packw_panel, n, ks, kc, config->nr, config->kr, input_zero_point, config->input_offset, w, bias,
              scales, packed);
}

size_t rl_qs8_dwconv_packed_size(size_t channels, size_t ct) {
    return round_up(channels, ct) * (sizeof(int32_t) + sizeof(float));
}

void rl_pack_qs8_dwconv(size_t channels, size_t taps, size_t ct, int32_t input_zero_point, const int8_t *w,
                        const int32_t *bias, const float *scales, void *packed) {
    unsigned char *out = packed;
    for (size_t c0 = 0; c0 < channels; c0 += ct) {
        for (size_t j = 0; j < ct; ++j) {
            const size_t c = c0 + j;
            uint32_t folded = 0;
            if (c < channels) {
                uint32_t sum = 0;
                for (size_t t = 0; t < taps; ++t) sum += (uint32_t)(int32_t)w[t * channels + c];
                folded = (bias ? (uint32_t)bias[c] : 0u) - (uint32_t)input_zero_point * sum;
            }
            store_u32(out, folded);
            out += sizeof(uint32_t);
        }
        for (size_t j = 0; j < ct; ++j) {
            const float scale = c0 + j < channels ? scales[c0 + j] : 0.0f;
            memcpy(out, &scale, sizeof scale);
            out += sizeof scale;
        }
    }
}

void rl_qs8_dwconv_weight_taps(size_t channels, size_t filter_h, size_t filter_w, const int8_t *filter,
                               const int8_t **weights) {
    for (size_t fx = 0; fx < filter_w; ++fx)
        for (size_t fy = 0; fy < filter_h; ++fy) *weights++ = filter + (fy * filter_w + fx) * channels;
}
