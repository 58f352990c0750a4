/* classify.c — run a .tflite model with librillet from C, no Python: load the file, fill the first input,
 * invoke, write the first output and print its top classes.
 *
 *     classify MODEL.tflite INPUT.bin [OUTPUT.bin] [--threads N] [--repeat N]
 *
 * INPUT.bin holds the first input tensor's raw bytes in its own type and shape (float32 or int8, row-major, the
 * machine's byte order): exactly rl_plan_tensor_bytes of them; numpy's `x.astype(np.float32).tofile(...)` writes
 * one. OUTPUT.bin receives the first output's raw bytes. On stdout: one line per top class, `class value`,
 * value dequantized for an int8 output. Exit status: 0, 1 for a model or file the program refuses (the
 * library's message on stderr), 2 for a wrong command line.
 *
 * The model must stay in memory while the plan lives (its constants are used in place), so it is read once into
 * one block freed at the end. A model with several subgraphs (IF, WHILE, CALL_ONCE) needs an rl_program holding
 * one plan per subgraph; this example runs subgraph 0 only.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rillet.h"

#define TOP_K 3

static void *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "classify: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    void *data = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0) n = ftell(f);
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        data = malloc(n > 0 ? (size_t)n : 1);
        if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
            free(data);
            data = NULL;
        }
    }
    if (!data) fprintf(stderr, "classify: %s: cannot read it\n", path);
    fclose(f);
    *size = n > 0 ? (size_t)n : 0;
    return data;
}

/* The library's own words for what went wrong: its status name and the plan's message (which names the op,
 * tensor or file offset at fault). */
static int report(const char *what, rl_status status, const rl_plan *plan) {
    fprintf(stderr, "classify: %s: %s: %s\n", what, rl_status_name(status), plan ? rl_plan_message(plan) : "");
    return 1;
}

/* The output's element k as a real number: an int8 or uint8 output dequantized with its scale and zero point. */
static double output_value(const rl_plan *plan, int32_t tensor, const void *data, size_t k) {
    float scale = 1.0f;
    int64_t zero_point = 0;
    const int32_t quantized = rl_plan_tensor_quantization(plan, tensor, &scale, &zero_point) > 0;
    switch (rl_plan_tensor_dtype(plan, tensor)) {
    case RL_FLOAT32: return ((const float *)data)[k];
    case RL_INT8: return quantized ? ((double)((const int8_t *)data)[k] - (double)zero_point) * scale
                                   : ((const int8_t *)data)[k];
    case RL_UINT8: return quantized ? ((double)((const uint8_t *)data)[k] - (double)zero_point) * scale
                                    : ((const uint8_t *)data)[k];
    case RL_INT32: return ((const int32_t *)data)[k];
    default: return 0.0;
    }
}

static size_t dtype_size(int32_t dtype) {
    switch (dtype) {
    case RL_FLOAT32: case RL_INT32: return 4;
    case RL_INT8: case RL_UINT8: return 1;
    default: return 0;
    }
}

static void print_top(const rl_plan *plan, int32_t tensor) {
    const size_t size = dtype_size(rl_plan_tensor_dtype(plan, tensor));
    if (!size) return; /* a type this example does not print; OUTPUT.bin still has it */
    const size_t count = rl_plan_tensor_bytes(plan, tensor) / size;
    const void *data = rl_plan_tensor_data((rl_plan *)plan, tensor);
    size_t best[TOP_K];
    size_t found = 0;
    for (size_t k = 0; k < count; ++k) { /* insertion into the top TOP_K, first index first on ties */
        const double v = output_value(plan, tensor, data, k);
        size_t at = found < TOP_K ? found : TOP_K;
        while (at > 0 && output_value(plan, tensor, data, best[at - 1]) < v) --at;
        if (at >= TOP_K) continue;
        for (size_t j = (found < TOP_K ? found : TOP_K - 1); j > at; --j) best[j] = best[j - 1];
        best[at] = k;
        if (found < TOP_K) ++found;
    }
    for (size_t j = 0; j < found; ++j) printf("%zu %.6g\n", best[j], output_value(plan, tensor, data, best[j]));
}

int main(int argc, char **argv) {
    const char *paths[3] = {NULL, NULL, NULL};
    int n_paths = 0, threads = 1, repeat = 1;
    for (int i = 1; i < argc; ++i) {
        if ((!strcmp(argv[i], "--threads") || !strcmp(argv[i], "--repeat")) && i + 1 < argc) {
            const int value = atoi(argv[i + 1]);
            if (value < 1) {
                fprintf(stderr, "classify: %s %s: must be 1 or more\n", argv[i], argv[i + 1]);
                return 2;
            }
            if (!strcmp(argv[i], "--threads")) threads = value;
            else repeat = value;
            ++i;
        } else if (n_paths < 3 && argv[i][0] != '-') {
            paths[n_paths++] = argv[i];
        } else {
            n_paths = 0;
            break;
        }
    }
    if (n_paths < 2) {
        fprintf(stderr, "usage: classify MODEL.tflite INPUT.bin [OUTPUT.bin] [--threads N] [--repeat N]\n");
        return 2;
    }

    size_t model_bytes = 0, input_bytes = 0;
    void *model = read_file(paths[0], &model_bytes);
    void *input = model ? read_file(paths[1], &input_bytes) : NULL;
    rl_plan *plan = NULL;
    int failed = !model || !input;
    rl_status status = RL_OK;
    if (!failed) {
        status = rl_plan_create(&plan, threads);
        if (status != RL_OK) failed = report("creating the plan", status, plan);
    }
    if (!failed) { /* RL_INVALID "malformed: ..." for a damaged file, RL_UNSUPPORTED "no kernel: ..." */
        status = rl_plan_build_from_tflite(plan, model, model_bytes, 0);
        if (status != RL_OK) failed = report(paths[0], status, plan);
    }
    if (!failed) {
        status = rl_plan_prepare(plan);
        if (status != RL_OK) failed = report(paths[0], status, plan);
    }
    int32_t in = -1, out = -1;
    if (!failed) {
        in = rl_plan_input(plan, 0);
        out = rl_plan_output(plan, 0);
        if (in < 0 || out < 0) {
            fprintf(stderr, "classify: %s has no input or no output\n", paths[0]);
            failed = 1;
        } else if (input_bytes != rl_plan_tensor_bytes(plan, in)) {
            fprintf(stderr, "classify: %s holds %zu bytes; the model's input takes %zu\n", paths[1], input_bytes,
                    rl_plan_tensor_bytes(plan, in));
            failed = 1;
        }
    }
    if (!failed) {
        /* The input's memory is the plan's (valid until the next prepare); the plan only reads it at invoke. */
        memcpy(rl_plan_tensor_data(plan, in), input, input_bytes);
        for (int r = 0; r < repeat && !failed; ++r) {
            status = rl_plan_invoke(plan);
            if (status != RL_OK) failed = report("invoke", status, plan);
        }
    }
    if (!failed && paths[2]) {
        FILE *f = fopen(paths[2], "wb");
        const size_t n = rl_plan_tensor_bytes(plan, out);
        if (!f || fwrite(rl_plan_tensor_data(plan, out), 1, n, f) != n) {
            fprintf(stderr, "classify: %s: cannot write it\n", paths[2]);
            failed = 1;
        }
        if (f && fclose(f) != 0) failed = 1;
    }
    if (!failed) print_top(plan, out);
    rl_plan_destroy(plan); /* before the model: the plan's constants point into it */
    free(input);
    free(model);
    return failed;
}
