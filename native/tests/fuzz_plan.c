/* fuzz_plan.c — a libFuzzer target over what a .tflite file reaches in librillet: the flatbuffer reader,
 * the graph check, every op's prepare, the arena planner and invoke, for every subgraph of one program (as
 * the Interpreter builds them: CALL_ONCE and variables shared). Built with clang under AddressSanitizer and
 * UBSan by native/tests/build_fuzzer.py; seeds come from tests/fuzz/make_corpus.py (the reference models and
 * structure-aware mutations of them). A crash, a sanitizer report, an error status without a message, or a
 * hang (libFuzzer's -timeout) is a finding.
 *
 *   python native/tests/build_fuzzer.py && python tests/fuzz/make_corpus.py build/fuzz-corpus
 *   ./build/fuzz_plan -max_len=65536 -timeout=30 -runs=1000000 build/fuzz-corpus
 *   (make_corpus.py --from-tests adds a single-op model of every op; -fork=1 -ignore_timeouts=1 for long runs)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rillet.h"

enum { MAX_SUBGRAPHS = 4 };
/* A hostile shape may ask for gigabytes; the plan refuses above this before allocating. Kept small so that
 * one input's ops stay well inside libFuzzer's -timeout under the sanitizers (a 470 MB MUL took 54 s). */
static const size_t MEMORY_LIMIT = (size_t)64 << 20;

static void check_message(rl_plan *plan, rl_status status) {
    if (status != RL_OK && rl_plan_message(plan)[0] == '\0') {
        fprintf(stderr, "status %d without a message\n", (int)status);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    rl_program *program = NULL;
    if (rl_program_create(&program) != RL_OK) return 0;
    rl_program_set_loop_limit(program, 10000); /* a WHILE that never ends is a hang, not a finding */
    rl_plan *plans[MAX_SUBGRAPHS] = {0};
    int built = 0;
    for (int32_t s = 0; s < MAX_SUBGRAPHS; ++s) {
        rl_plan *plan = NULL;
        if (rl_plan_create(&plan, 1 + s % 2) != RL_OK) { /* two threads on odd subgraphs: the pool too */
            rl_plan_destroy(plan);
            break;
        }
        rl_plan_set_memory_limit(plan, MEMORY_LIMIT);
        plans[s] = plan;
        rl_status status = rl_program_add_plan(program, s, plan);
        if (status == RL_OK) status = rl_plan_build_from_tflite(plan, data, size, s);
        check_message(plan, status);
        if (status != RL_OK) break;
        built = s + 1;
    }
    for (int s = 0; s < built; ++s) {
        if (rl_plan_check_support(plans[s]) != RL_OK) continue;
        rl_status status = rl_plan_prepare(plans[s]);
        check_message(plans[s], status);
    }
    /* Invoke twice: the second sees the variables and CALL_ONCE state the first left. */
    for (int round = 0; round < 2; ++round)
        for (int s = 0; s < built; ++s) check_message(plans[s], rl_plan_invoke(plans[s]));
    for (int s = MAX_SUBGRAPHS - 1; s >= 0; --s) rl_plan_destroy(plans[s]);
    rl_program_destroy(program);
    return 0;
}
