#include "bsd_paths.h"

#include <stdio.h>
#include <stdlib.h>

void bsd_default_socket(char *out, size_t len, int with_override)
{
    const char *s = with_override ? secure_getenv("BITSLICE_SOCKET") : NULL;
    const char *rt = secure_getenv("XDG_RUNTIME_DIR");
    if (s != NULL && s[0] != 0)
        snprintf(out, len, "%s", s);
    else if (rt != NULL && rt[0] == '/')
        snprintf(out, len, "%s/bitslice/bitsliced.sock", rt);
    else
        snprintf(out, len, "%s", BSD_SYSTEM_SOCKET);
}
