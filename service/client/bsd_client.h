/*
 * bsd_client.h: the blocking client of bitsliced (service/proto/PROTOCOL.md). No libuv: it links
 * only libc and the cores, so the OpenSSL provider can carry it. Every wait is bounded by a
 * timeout. Not thread-safe: one client per thread (or per EVP context).
 *
 * Errors are negative errno values: -ENOENT/-ECONNREFUSED (no daemon), -ETIMEDOUT, -EPIPE
 * (daemon gone), -EPROTO (garbage on the wire), -EREMOTEIO (the daemon answered ERROR; see
 * bsd_client_last_error), -ECHILD (used across fork(): open a new client in the child).
 */
#ifndef BSD_CLIENT_H
#define BSD_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bsd_proto.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bsd_client bsd_client;

typedef struct bsd_client_opts {
    const char *socket_path; /* NULL: bsd_client_default_socket() */
    int connect_timeout_ms;  /* 0: 1000 */
    int io_timeout_ms;       /* per reply; 0: 5000 */
} bsd_client_opts;

/* $BITSLICE_SOCKET, else $XDG_RUNTIME_DIR/bitslice/bitsliced.sock, else /run/bitslice/... */
void bsd_client_default_socket(char *out, size_t len);

/* Connects and says HELLO. */
int bsd_client_connect(const bsd_client_opts *opts, bsd_client **out);
/* Closes the socket (the daemon wipes this connection's sessions) and unmaps shared memory. */
void bsd_client_close(bsd_client *c);
const bsd_hello_rep *bsd_client_info(const bsd_client *c);
/* The daemon's last ERROR: its code (bsd_errc) and text. */
uint32_t bsd_client_last_error(const bsd_client *c, const char **text);
int bsd_client_fd(const bsd_client *c);

/*
 * Creates a sealed memfd of size bytes, maps it here and in the daemon (MAP_SHM), every page
 * allocated at once (MAP_POPULATE: no page faults on either side, for a mapping that will be
 * written whole); bsd_client_close frees it again (a hole punched) unless a request is still
 * unanswered. _ex with populate 0: this process allocates none of it; the daemon allocates each
 * window's pages before it first writes there (a failure is that request's error), so memory
 * never asked for is never allocated, as long as this process writes only where the daemon has
 * written (bsd_windows does).
 */
int bsd_client_map_shm(bsd_client *c, size_t size);
int bsd_client_map_shm_ex(bsd_client *c, size_t size, int populate);
uint8_t *bsd_client_shm(const bsd_client *c, size_t *size);

int bsd_client_open_session(bsd_client *c, const char *cipher, const uint8_t *key, size_t key_len,
                            uint32_t *session, unsigned *block_len);
int bsd_client_close_session(bsd_client *c, uint32_t session);

/*
 * KEYSTREAM: nblocks of CTR keystream from counter (block_len bytes) into the shared memory
 * at shm_offset. submit returns at once with a request id; wait blocks until that request is
 * answered (other answers that arrive meanwhile are kept for their own wait).
 */
int bsd_client_keystream_submit(bsd_client *c, uint32_t session, const uint8_t *counter,
                                size_t counter_len, uint64_t nblocks, uint64_t shm_offset,
                                uint32_t *req_id);
int bsd_client_wait(bsd_client *c, uint32_t req_id, int timeout_ms);
/*
 * submit asking for piece digests (BSD_KS_PIECE_LOG2, the daemon's caps has BSD_CAP_PIECES):
 * when the reply arrives, npieces piece digests (the window's bytes in pieces of 2^piece_log2)
 * are written to pieces, which must stay valid until the request is waited for or the client
 * closed; a reply with another count breaks the connection (-EPROTO).
 */
int bsd_client_keystream_submit_pieces(bsd_client *c, uint32_t session, const uint8_t *counter,
                                       size_t counter_len, uint64_t nblocks, uint64_t shm_offset,
                                       unsigned piece_log2, uint64_t *pieces, size_t npieces,
                                       uint32_t *req_id);
/* getpid(), cached for the process and renewed in a child of fork() (pthread_atfork). */
pid_t bsd_client_getpid(void);
/*
 * wait, and the reply's window digest (bs_digest.h): what the daemon computed over the window
 * right after its backend wrote it. Check it with bsd_verify_move before using the window.
 * -EBADMSG when the daemon's own check refused the window (ERROR integrity).
 */
int bsd_client_wait_keystream(bsd_client *c, uint32_t req_id, int timeout_ms, uint64_t *digest);
/* REPORT: tells the daemon that a window failed the client's check (kind BSD_REPORT_*). */
int bsd_client_report(bsd_client *c, uint32_t kind, uint32_t session, uint64_t nblocks);
/* submit + wait. */
int bsd_client_keystream(bsd_client *c, uint32_t session, const uint8_t *counter,
                         size_t counter_len, uint64_t nblocks, uint64_t shm_offset);

/*
 * RATE: the daemon's measured keystream rate for cipher (by name), calibrated first where it has
 * measured too little (PROTOCOL.md). -EOPNOTSUPP when the daemon does not offer RATE (caps).
 */
int bsd_client_rate(bsd_client *c, const char *cipher, bsd_rate_rep *out);

/*
 * Holding: from bsd_client_hold, KEYSTREAM requests (submit, submit_pieces) are kept here, up to
 * BSD_CLIENT_HELD of them, and go out together in one write at bsd_client_flush (0 or the send's
 * error), before any other request, or before any wait; a request's submit then says only that
 * it was queued. One system call, and one wakeup of the daemon, for several windows.
 */
#define BSD_CLIENT_HELD 8
void bsd_client_hold(bsd_client *c);
int bsd_client_flush(bsd_client *c);

/*
 * KEYSTREAM reply waits that found none of the reply's bytes arrived yet and blocked (since
 * connect); other requests' waits do not count.
 */
uint64_t bsd_client_stalls(const bsd_client *c);

/* The STATUS text, NUL-terminated (truncated to len - 1). */
int bsd_client_status(bsd_client *c, char *out, size_t len);

/* Low level, for tests: sends raw bytes on the socket, with an optional fd in SCM_RIGHTS. */
int bsd_client_send_raw(bsd_client *c, const void *buf, size_t len, int fd);

/*
 * BENCHMARK ONLY (bsd_verify_bench_set_unchecked, bsd_verify.h): KEYSTREAM requests of this
 * process ask for unchecked windows (no poison, no digest).
 */
void bsd_client_bench_set_unchecked(int on);
int bsd_client_bench_unchecked(void);

#ifdef __cplusplus
}
#endif

#endif
