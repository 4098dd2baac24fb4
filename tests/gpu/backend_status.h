/*
 * backend_status.h: the CUDA backend tests' check of a STATUS field, written once for
 * test_backend_cuda.c and test_backend_cuda_stream.c. Include after cmocka.h.
 */
#ifndef BS_TEST_BACKEND_STATUS_H
#define BS_TEST_BACKEND_STATUS_H

#include <stdio.h>
#include <string.h>

#include "bsd_backend_cuda.h"

/* With the daemon's own buffer size (bsd_status.c, bsd_main.c): a field cut off there is lost. */
static inline void status_has(bsd_backend *be, const char *what)
{
    char line[BSD_DESCRIBE_MAX];
    be->ops->describe(be, line, sizeof line);
    if (strstr(line, what) == NULL) {
        printf("STATUS: %s\nwanted: %s\n", line, what);
        fail();
    }
}

#endif
