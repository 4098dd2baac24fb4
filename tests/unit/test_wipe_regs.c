/*
 * bs_wipe_vector_regs (bitslice.h) also zeroes the caller-saved general registers (SysV: rax,
 * rcx, rdx, rsi, rdi, r8-r11), where the stitched GCM loop's GHASH reductions leave their words:
 * the provider calls it before every call that touched a key or data returns (tests/provider/
 * test_regs.c checks the vector registers in a signal frame; this checks the general ones).
 *
 * How: each of those registers is set to a marker, the function is called from assembly, and
 * the registers are stored right after it returns: each must be zero. (Not merely other than
 * the marker: without the zeroing, rax, rcx and rdx come back with what the call's other code
 * left there, which such a check would pass.) The control calls a function that writes nothing:
 * the markers must come back, or the check could not see them.
 * x86-64 only (exit 77 elsewhere).
 */
#include <stdint.h>
#include <stdio.h>

#include "bitslice.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#define NREGS 9
static const char *const names[NREGS] = {"rax", "rcx", "rdx", "rsi", "rdi",
                                         "r8",  "r9",  "r10", "r11"};

/* The control: returns without writing a register. */
__attribute__((noinline)) void bs_test_touch_nothing(void)
{
    __asm__ __volatile__("");
}

/* Sets the nine registers to marker, calls fn, stores them into out[0..8]. */
#define CALL_WITH_MARKERS(fn, marker, out)                                                         \
    __asm__ __volatile__("mov %0, %%rax\n\t" /* operands first: they may be rsp-relative */        \
                         "mov %1, %%r12\n\t"                                                       \
                         "mov %%rsp, %%rbx\n\t"                                                    \
                         "sub $256, %%rsp\n\t" /* past the red zone */                             \
                         "and $-16, %%rsp\n\t"                                                     \
                         "mov %%rax, %%rcx\n\tmov %%rax, %%rdx\n\tmov %%rax, %%rsi\n\t"            \
                         "mov %%rax, %%rdi\n\tmov %%rax, %%r8\n\tmov %%rax, %%r9\n\t"              \
                         "mov %%rax, %%r10\n\tmov %%rax, %%r11\n\t"                                \
                         "call " #fn "\n\t"                                                        \
                         "mov %%rax, 0(%%r12)\n\tmov %%rcx, 8(%%r12)\n\tmov %%rdx, 16(%%r12)\n\t"  \
                         "mov %%rsi, 24(%%r12)\n\tmov %%rdi, 32(%%r12)\n\tmov %%r8, 40(%%r12)\n\t" \
                         "mov %%r9, 48(%%r12)\n\tmov %%r10, 56(%%r12)\n\tmov %%r11, 64(%%r12)\n\t" \
                         "mov %%rbx, %%rsp"                                                        \
                         :                                                                         \
                         : "m"(marker), "r"(out)                                                   \
                         : "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11",     \
                           "r12", "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",  \
                           "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",     \
                           "xmm14", "xmm15")

int main(void)
{
    const uint64_t marker = 0x5a5a5a5a5a5a5a5aull;
    uint64_t after[NREGS], control[NREGS];
    CALL_WITH_MARKERS(bs_wipe_vector_regs, marker, after);
    CALL_WITH_MARKERS(bs_test_touch_nothing, marker, control);
    int failures = 0, seen = 0;
    for (int i = 0; i < NREGS; i++) {
        if (after[i] != 0) {
            printf("FAIL %s is %016llx after bs_wipe_vector_regs, not zero\n", names[i],
                   (unsigned long long)after[i]);
            failures++;
        }
        seen += control[i] == marker;
    }
    printf("%d of %d caller-saved registers zeroed; control: %d of %d kept the marker\n",
           NREGS - failures, NREGS, seen, NREGS);
    if (seen != NREGS) {
        printf("FAIL: the control lost markers: the check cannot see them\n");
        failures++;
    }
    return failures != 0;
}

#else
int main(void)
{
    printf("SKIP: x86-64 only\n");
    return 77;
}
#endif
