/* qemu_insn_count.c — a qemu TCG plugin that counts the guest instructions a program executes and prints
 * "insns N" at exit: what bench/arm_instruction_count.py compares across kernel paths under qemu-user, where
 * time means nothing. A guest may also mark points of its run: the syscall MARK_SYSCALL (a number no kernel
 * implements, so it only returns ENOSYS) prints "mark K N", K its first argument and N the count so far, which
 * is how bench/bench_arm.py counts one invoke or one op inside a single Python process. The few plugin-API declarations it needs are written out here (Debian ships qemu-user
 * with plugin support but without qemu-plugin.h); they follow the API version 1 of qemu 7 and later. */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_syscall_cb_t)(qemu_plugin_id_t id, unsigned int vcpu_index, int64_t num, uint64_t a1,
                                              uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6,
                                              uint64_t a7, uint64_t a8);
void qemu_plugin_register_vcpu_syscall_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_syscall_cb_t cb);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op, void *ptr,
                                              uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
void qemu_plugin_outs(const char *string);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* One counter for every vCPU: the programs measured run on one thread, so the inline adds never race. */
static uint64_t executed;

/* Each translated block adds its instruction count every time it runs. */
static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &executed, qemu_plugin_tb_n_insns(tb));
}

/* Kept in step with bench/bench_arm.py's MARK_SYSCALL. */
#define MARK_SYSCALL 0x5249

/* The block holding the svc was counted when it began, so a mark includes the instructions up to the svc. */
static void on_syscall(qemu_plugin_id_t id, unsigned int vcpu_index, int64_t num, uint64_t a1, uint64_t a2,
                       uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8) {
    (void)id, (void)vcpu_index, (void)a2, (void)a3, (void)a4, (void)a5, (void)a6, (void)a7, (void)a8;
    if (num != MARK_SYSCALL) return;
    char line[80];
    snprintf(line, sizeof line, "mark %" PRIu64 " %" PRIu64 "\n", a1, executed);
    qemu_plugin_outs(line);
}

static void report_count(qemu_plugin_id_t id, void *userdata) {
    (void)id, (void)userdata;
    char line[64];
    snprintf(line, sizeof line, "insns %" PRIu64 "\n", executed);
    qemu_plugin_outs(line);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                                               int argc, char **argv) {
    (void)info, (void)argc, (void)argv;
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
    qemu_plugin_register_atexit_cb(id, report_count, NULL);
    return 0;
}
