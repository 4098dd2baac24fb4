/*
 * bsd_paths.h: where the daemon listens and clients look, computed in this one place for the
 * daemon (bsd_config.c), the client library and the programs' help texts:
 * $XDG_RUNTIME_DIR/bitslice/bitsliced.sock for a user's daemon, else the system daemon's
 * /run/bitslice/bitsliced.sock. Clients (with_override) take $BITSLICE_SOCKET first.
 */
#ifndef BSD_PATHS_H
#define BSD_PATHS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BSD_SYSTEM_SOCKET "/run/bitslice/bitsliced.sock"

/*
 * The default socket path into out. with_override: $BITSLICE_SOCKET wins when set and not
 * empty (clients). secure_getenv throughout: a set-uid program must not send keys to, or
 * listen on, a socket its caller chose.
 */
void bsd_default_socket(char *out, size_t len, int with_override);

#ifdef __cplusplus
}
#endif

#endif
