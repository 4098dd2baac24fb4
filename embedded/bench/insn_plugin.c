/*
 * insn_plugin.c: a QEMU TCG plugin (plugin API version 1, QEMU 7.2) that counts the guest
 * instructions executed between two addresses: from the entry of bsemb_mark_begin to the entry
 * of bsemb_mark_end (embedded/bench/bench.c), one count per window, in order. With hist=N it
 * also writes how often each PC ran inside window N, for the cycle estimate (estimate.py).
 *
 *   qemu-system-arm ... -plugin libbsemb_insn.so,begin=0x...,end=0x...,out=FILE[,hist=N]
 *
 * Debian ships neither QEMU's plugins nor qemu-plugin.h, so the few declarations this needs
 * are written out below, after QEMU's include/qemu/qemu-plugin.h (version 1 ABI).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t; /* only passed through */
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS = 0 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
                                            qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);

#define BSEMB_EXPORT __attribute__((visibility("default")))
BSEMB_EXPORT extern int qemu_plugin_version;
BSEMB_EXPORT int qemu_plugin_version = 1;
BSEMB_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                     char **argv);

/* Per-PC counters in an open-addressing table: PCs are public, and the firmware is small. */
#define TABLE_BITS 18
typedef struct pc_slot {
    uint64_t pc;
    uint64_t count;
    int used;
} pc_slot;

static pc_slot *table;
static uint64_t begin_pc = 1, end_pc = 1; /* odd: matches no instruction until set */
static FILE *out;
static int counting;
static long window = -1, hist_window = -1;
static uint64_t window_count;

static pc_slot *slot_for(uint64_t pc)
{
    size_t mask = ((size_t)1 << TABLE_BITS) - 1, i = (size_t)(pc >> 1) & mask;
    while (table[i].used && table[i].pc != pc)
        i = (i + 1) & mask;
    if (!table[i].used) {
        table[i].used = 1;
        table[i].pc = pc;
    }
    return &table[i];
}

static void on_insn(unsigned int vcpu, void *udata)
{
    pc_slot *s = (pc_slot *)udata;
    (void)vcpu;
    if (s->pc == begin_pc) {
        counting = 1;
        window++;
        window_count = 0;
    }
    if (!counting)
        return;
    window_count++;
    if (window == hist_window)
        s->count++;
    if (s->pc == end_pc) {
        counting = 0;
        fprintf(out, "window %ld %" PRIu64 "\n", window, window_count);
    }
}

static void on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        pc_slot *s = slot_for(qemu_plugin_insn_vaddr(insn));
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, QEMU_PLUGIN_CB_NO_REGS, s);
    }
}

static void on_plugin_exit(qemu_plugin_id_t id, void *udata)
{
    (void)id;
    (void)udata;
    if (hist_window >= 0)
        for (size_t i = 0; i < ((size_t)1 << TABLE_BITS); i++)
            if (table[i].used && table[i].count)
                fprintf(out, "pc 0x%" PRIx64 " %" PRIu64 "\n", table[i].pc, table[i].count);
    fclose(out);
}

int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    const char *path = NULL;
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "begin=", 6) == 0)
            begin_pc = strtoull(argv[i] + 6, NULL, 0) & ~(uint64_t)1; /* Thumb bit */
        else if (strncmp(argv[i], "end=", 4) == 0)
            end_pc = strtoull(argv[i] + 4, NULL, 0) & ~(uint64_t)1;
        else if (strncmp(argv[i], "out=", 4) == 0)
            path = argv[i] + 4;
        else if (strncmp(argv[i], "hist=", 5) == 0)
            hist_window = strtol(argv[i] + 5, NULL, 0);
        else {
            fprintf(stderr, "insn_plugin: unknown argument %s\n", argv[i]);
            return -1;
        }
    }
    if (path == NULL || (begin_pc & 1) || (end_pc & 1)) {
        fprintf(stderr, "insn_plugin: needs begin=ADDR,end=ADDR,out=FILE\n");
        return -1;
    }
    out = fopen(path, "w");
    table = (pc_slot *)calloc((size_t)1 << TABLE_BITS, sizeof *table);
    if (out == NULL || table == NULL) {
        fprintf(stderr, "insn_plugin: cannot open %s\n", path);
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb);
    qemu_plugin_register_atexit_cb(id, on_plugin_exit, NULL);
    return 0;
}
