/*
 * The backends compiled into the daemon, and the choice among them. The only place that knows
 * which exist: service/backend/meson.build defines BSD_HAVE_CUDA when the CUDA backend is built.
 */
#include <string.h>

#include "bsd_backend.h"
#include "bsd_log.h"

#ifdef BSD_HAVE_CUDA
#include "bsd_backend_cuda.h"
#endif

uint64_t bsd_backend_syscalls;

const bsd_backend_kind bsd_backend_kinds[] = {
#ifdef BSD_HAVE_CUDA
    {"cuda", bsd_backend_cuda_create},
#endif
    {"cpu", bsd_backend_cpu_create},
#ifdef BSD_BENCH_CEILING
    /* Benchmark builds only; never chosen by "auto" (bsd_backend_create). */
    {"ceiling", bsd_backend_ceiling_create},
#endif
    {NULL, NULL},
};

int bsd_backend_known(const char *name)
{
    if (strcmp(name, "auto") == 0)
        return 1;
    for (const bsd_backend_kind *k = bsd_backend_kinds; k->name != NULL; k++)
        if (strcmp(k->name, name) == 0)
            return 1;
    return 0;
}

bsd_backend *bsd_backend_create(const char *name, uv_loop_t *loop, unsigned threads)
{
    int any = strcmp(name, "auto") == 0;
    for (const bsd_backend_kind *k = bsd_backend_kinds; k->name != NULL; k++) {
        if (!any && strcmp(k->name, name) != 0)
            continue;
        if (any && strcmp(k->name, "ceiling") == 0)
            continue;
        bsd_backend *be = k->create(loop, threads);
        if (be != NULL)
            return be;
        if (!any) {
            BSD_WARN("backend", "wanted=%s reason=\"no usable device\" using=cpu", name);
            break;
        }
    }
    /* "auto" tried them all (the CPU backend, last, fails only without memory). */
    return any ? NULL : bsd_backend_cpu_create(loop, threads);
}
