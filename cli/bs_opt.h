/*
 * bs_opt.h: the conventions every command-line program follows, around getopt_long(3):
 * short and long forms, "--opt=value" and "--opt value"; --help on standard output with exit 0;
 * --version on standard output with exit 0; a usage error names the option on standard error,
 * says where the help is, and exits 2. Each program keeps its own option table.
 */
#ifndef BS_OPT_H
#define BS_OPT_H

#include <stddef.h>

/* Exit status of a usage error. */
#define BS_EXIT_USAGE 2

/*
 * After getopt_long returned '?' (unknown option) or ':' (missing argument; the short options
 * string must start with ':'): prints "PROG: unknown option '--x'" (or "missing argument of") and
 * "Run 'HELP --help' for the options." on standard error. Returns BS_EXIT_USAGE.
 */
int bs_opt_error(const char *prog, const char *help_cmd, int c, char **argv);

/* A usage error with a free text (and an optional quoted argument); returns BS_EXIT_USAGE. */
int bs_usage_error(const char *prog, const char *help_cmd, const char *what, const char *arg);

/*
 * The names of the compiled-in block ciphers, comma-separated, each once ("PRESENT-80,
 * PRESENT-128, ..."), for "unknown cipher" messages.
 */
void bs_cipher_names(char *buf, size_t len);

#endif
