#include "bs_opt.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "bitslice.h"

int bs_usage_error(const char *prog, const char *help_cmd, const char *what, const char *arg)
{
    fprintf(stderr, "%s: %s%s%s%s\nRun '%s --help' for the options.\n", prog, what,
            arg != NULL ? " '" : "", arg != NULL ? arg : "", arg != NULL ? "'" : "", help_cmd);
    return BS_EXIT_USAGE;
}

int bs_opt_error(const char *prog, const char *help_cmd, int c, char **argv)
{
    char shortopt[3] = {'-', (char)optopt, 0}, longopt[64];
    const char *last = argv[optind - 1];
    const char *arg = shortopt;
    /* A long option as written, without any "=value"; a short one may sit in a cluster (-qx). */
    if (strncmp(last, "--", 2) == 0) {
        snprintf(longopt, sizeof longopt, "%.*s", (int)strcspn(last, "="), last);
        arg = longopt;
    }
    return bs_usage_error(prog, help_cmd, c == ':' ? "missing argument of" : "unknown option", arg);
}

void bs_cipher_names(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; bs_block_ciphers[i] != NULL; i++) {
        const char *name = bs_block_ciphers[i]->name;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(bs_block_ciphers[j]->name, name) == 0;
        if (seen)
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used > 0 ? ", " : "", name);
        if (n < 0 || (size_t)n >= len - used)
            break;
        used += (size_t)n;
    }
}
