/* model_isa_run.c — runs subgraph 0 of a .tflite file once on the kernel path RILLET_ISA names and writes every
 * tensor the arena holds (all kept: preserve-all) to a folder, one raw file per tensor (t<index>.bin). Built
 * against the whole library for another architecture, it lets tests/native/test_arm_kernels.py run the
 * reference models on the NEON paths under qemu-user, where no Python runs, and compare every tensor across
 * paths and the output with LiteRT's.
 *
 *   model_isa_run model.tflite input_tensor input.bin out_dir [invokes]
 * prints the path the plan runs ("isa neon"); exit 0, or 1 with librillet's message. `invokes` (default 1)
 * repeats the invoke, so bench/arm_instruction_count.py can count one invoke's instructions under qemu as the
 * difference between two runs. */
#include <stdio.h>
#include <stdlib.h>

#include "rillet.h"

static void *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *data = n > 0 ? malloc((size_t)n) : NULL;
    if (data != NULL && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *size = data ? (size_t)n : 0;
    return data;
}

static int fail(rl_plan *plan, const char *what) {
    printf("%s: %s\n", what, plan ? rl_plan_message(plan) : "");
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: %s model.tflite input_tensor input.bin out_dir [invokes]\n", argv[0]);
        return 2;
    }
    size_t model_size, input_size;
    void *model = read_file(argv[1], &model_size), *input = read_file(argv[3], &input_size);
    if (model == NULL || input == NULL) {
        fprintf(stderr, "cannot read %s or %s\n", argv[1], argv[3]);
        return 2;
    }
    const int32_t input_tensor = atoi(argv[2]);
    rl_plan *plan = NULL;
    if (rl_plan_create(&plan, 1) != RL_OK) return fail(plan, "create");
    rl_plan_set_preserve_all_tensors(plan, 1);
    if (rl_plan_build_from_tflite(plan, model, model_size, 0) != RL_OK) return fail(plan, "build");
    if (rl_plan_prepare(plan) != RL_OK) return fail(plan, "prepare");
    if (rl_plan_tensor_bytes(plan, input_tensor) != input_size) {
        printf("input tensor %d holds %zu bytes, the file %zu\n", input_tensor, rl_plan_tensor_bytes(plan, input_tensor),
               input_size);
        return 1;
    }
    for (size_t i = 0; i < input_size; ++i) ((unsigned char *)rl_plan_tensor_data(plan, input_tensor))[i] =
        ((const unsigned char *)input)[i];
    const int invokes = argc == 6 ? atoi(argv[5]) : 1;
    for (int i = 0; i < invokes; ++i)
        if (rl_plan_invoke(plan) != RL_OK) return fail(plan, "invoke");
    printf("isa %s\n", rl_plan_isa(plan));
    for (int32_t t = 0; t < rl_plan_tensor_count(plan); ++t) {
        const size_t bytes = rl_plan_tensor_bytes(plan, t);
        if (rl_plan_tensor_storage(plan, t) != RL_STORAGE_ARENA || bytes == 0) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/t%d.bin", argv[4], (int)t);
        FILE *f = fopen(path, "wb");
        if (f == NULL || fwrite(rl_plan_tensor_data(plan, t), 1, bytes, f) != bytes) {
            fprintf(stderr, "cannot write %s\n", path);
            return 2;
        }
        fclose(f);
    }
    rl_plan_destroy(plan);
    free(model);
    free(input);
    return 0;
}
