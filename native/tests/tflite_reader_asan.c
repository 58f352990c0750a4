/* tflite_reader_asan.c — rl_plan_build_from_tflite under AddressSanitizer and UBSan: every model named on
 * the command line, then `copies` damaged copies of each (bytes and words overwritten, tails cut), each in
 * a heap block of exactly its size so that a read past the end is caught. With --prepare, a plan that
 * builds is also prepared and invoked (the ops' checks of a damaged model, beyond the reader).
 *
 *   python native/tests/build_asan.py
 *   UBSAN_OPTIONS=halt_on_error=1 ./build/tflite_reader_asan 3000 ../shared/models/ *.tflite
 *   ./build/tflite_reader_asan --prepare 3000 ../shared/models/ *.tflite   (UBSan reports, goes on)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rillet.h"

static uint64_t state = 0x9E3779B97F4A7C15u;

static uint32_t next_random(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (uint32_t)(state >> 16);
}

static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *data = malloc(*size ? *size : 1);
    if (data && fread(data, 1, *size, f) != *size) {
        free(data);
        data = NULL;
    }
    fclose(f);
    return data;
}

/* Builds (and when it builds, prepares and invokes) one plan of every subgraph up to 3; returns the build
 * status of subgraph 0. */
static int prepare_too = 0;

static int try_model(const unsigned char *data, size_t size) {
    int first = -1;
    for (int32_t s = 0; s < 3; ++s) {
        rl_plan *plan = NULL;
        rl_program *program = NULL;
        rl_program_create(&program);
        rl_plan_create(&plan, 1);
        if (program) rl_program_add_plan(program, s, plan);
        rl_status status = rl_plan_build_from_tflite(plan, data, size, s);
        if (status != RL_OK && rl_plan_message(plan)[0] == '\0') {
            fprintf(stderr, "status %d without a message\n", status);
            abort();
        }
        if (s == 0) first = status;
        if (prepare_too && status == RL_OK && rl_plan_check_support(plan) == RL_OK && rl_plan_prepare(plan) == RL_OK)
            rl_plan_invoke(plan);
        rl_plan_destroy(plan);
        rl_program_destroy(program);
    }
    return first;
}

int main(int argc, char **argv) {
    int first = 1;
    if (argc > 1 && strcmp(argv[1], "--prepare") == 0) prepare_too = 1, first = 2;
    if (argc < first + 2) {
        fprintf(stderr, "usage: %s [--prepare] COPIES MODEL...\n", argv[0]);
        return 2;
    }
    const int copies = atoi(argv[first]);
    for (int m = first + 1; m < argc; ++m) {
        size_t size;
        unsigned char *model = read_file(argv[m], &size);
        if (!model) {
            fprintf(stderr, "cannot read %s\n", argv[m]);
            return 2;
        }
        int counts[5] = {0};
        const int whole = try_model(model, size);
        for (int c = 0; c < copies; ++c) {
            size_t n = size;
            const int cuts = next_random() % 8 == 0;
            if (cuts) n = next_random() % (size + 1);
            unsigned char *copy = malloc(n ? n : 1);
            memcpy(copy, model, n);
            const int changes = 1 + (int)(next_random() % 8);
            for (int k = 0; k < changes && n >= 4; ++k) {
                /* Most damage near the front, where the tables and vtables are. */
                const size_t span = next_random() % 2 ? (n < 4096 ? n : 4096) : n;
                const size_t at = next_random() % (span - 3);
                if (next_random() % 2) {
                    copy[at] = (unsigned char)next_random();
                } else {
                    static const uint32_t words[] = {0, 1, 4, 0x7FFFFFFFu, 0xFFFFFFFFu, 0x80000000u, 0xFFFFu};
                    uint32_t w = next_random() % 2 ? words[next_random() % 7] : next_random();
                    memcpy(copy + (at & ~(size_t)3), &w, 4);
                }
            }
            const int status = try_model(copy, n);
            counts[status >= 0 && status < 5 ? status : 4]++;
            free(copy);
        }
        printf("%s: whole file status %d; %d copies: %d built, %d invalid, %d unsupported, %d other\n", argv[m], whole,
               copies, counts[RL_OK], counts[RL_INVALID], counts[RL_UNSUPPORTED], counts[3] + counts[4]);
        free(model);
    }
    return 0;
}
