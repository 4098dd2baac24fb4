/*
 * The shared memory a client maps into the daemon is charged to its uid and bounded
 * (max_shm_bytes_per_uid), and the daemon does not allocate a client's mapping for it: a memfd
 * with holes stays unallocated at MAP_SHM, and only the windows asked for are allocated when
 * the daemon writes them. Before, the daemon populated (allocated and cleared) every mapping
 * whole at MAP_SHM, up to max_shm_bytes (1 GiB) a connection. The daemon allocates a window's
 * pages before it computes there, so a failed allocation is a request's error, not a SIGBUS.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bsd_client.h"
#include "bsd_proto.h"
#include "bsd_source.h"
#include "bsd_windows.h"
#include "modes/ctr.h"
#include "svc_util.h"

#define MIB ((size_t)1 << 20)

static svc_daemon dmn;

static bsd_client *connect_one(void)
{
    bsd_client_opts o = {dmn.socket, 1000, 60000};
    bsd_client *c = NULL;
    CHECK(bsd_client_connect(&o, &c) == 0);
    return c;
}

/* A sealed memfd of size bytes that nobody has touched: no page of it is allocated. */
static int untouched_memfd(size_t size)
{
    int fd = memfd_create("shm-quota", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    CHECK(fd >= 0);
    CHECK(ftruncate(fd, (off_t)size) == 0);
    CHECK(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == 0);
    return fd;
}

static uint64_t allocated_bytes(int fd)
{
    struct stat st;
    CHECK(fstat(fd, &st) == 0);
    return (uint64_t)st.st_blocks * 512;
}

/* n bytes from fd, waiting at most 10 s for each part. */
static void recv_all(int fd, uint8_t *p, size_t n)
{
    while (n > 0) {
        struct pollfd pfd = {fd, POLLIN, 0};
        CHECK(poll(&pfd, 1, 10000) == 1);
        ssize_t k = recv(fd, p, n, 0);
        CHECK(k > 0);
        p += k;
        n -= (size_t)k;
    }
}

/* Pages of the mapping [p, p + size) that are in memory (mincore). */
static size_t resident_pages(const uint8_t *p, size_t size)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (size + page - 1) / page;
    static unsigned char vec[(64 * MIB) / 4096];
    CHECK(n <= sizeof vec);
    CHECK(mincore((void *)p, size, vec) == 0);
    size_t r = 0;
    for (size_t i = 0; i < n; i++)
        r += vec[i] & 1;
    return r;
}

/*
 * The client's two ways to map: bsd_client_map_shm allocates every page at once (no faults on
 * either side, for a mapping written whole); a stream's ring of windows (bsd_windows) allocates
 * none until windows are written, so a stream pays only for the slots it reaches.
 */
static void populate_or_not(const bs_block_cipher *cipher)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    bsd_client *c = connect_one();
    CHECK(bsd_client_map_shm(c, 8 * MIB) == 0);
    size_t size = 0;
    const uint8_t *m = bsd_client_shm(c, &size);
    CHECK(size == 8 * MIB && resident_pages(m, size) == size / page);
    bsd_client_close(c);

    bsd_client_opts o = {dmn.socket, 1000, 60000};
    bsd_windows w;
    uint8_t key[BS_KEY_MAX] = {9}, ctr[BS_BLOCK_MAX] = {0};
    CHECK(bsd_windows_open_by_cost(&w, &o, cipher, key, cipher->key_len, MIB, 8, BSD_OFFLOAD_ALWAYS,
                                   NULL) == 0);
    m = bsd_client_shm(w.client, &size);
    CHECK(size == 8 * MIB && resident_pages(m, size) == 0);
    /* One window of 64 KiB into slot 0: that window is allocated, and nothing else. */
    const uint64_t nb = 65536 / cipher->block_len;
    CHECK(bsd_windows_submit(&w, 0, ctr, nb) == 0);
    CHECK(bsd_windows_discard(&w, 0) == 0);
    const size_t used = resident_pages(m, size);
    printf("a stream's ring of 8 x 1 MiB windows: 0 pages in memory at open, %zu after one "
           "64 KiB window (bsd_client_map_shm: all %zu at once)\n",
           used, size / page);
    CHECK(used >= nb * cipher->block_len / page && used <= MIB / page);
    /* One more into slot 1, moved into the private copies (checked) and used. */
    static bs_key_schedule ks;
    cipher->set_key(&ks, key);
    const uint8_t *mem = NULL;
    CHECK(bsd_windows_submit(&w, 1, ctr, nb) == 0);
    CHECK(bsd_windows_get(&w, 1, &ks, &mem) == 0 && mem != NULL);
    bsd_windows_release(&w, 1);
    /*
     * Close wipes what was written, not the whole ring and the whole copies: writing zeroes
     * into their untouched pages would allocate them here (2 x 8 MiB: about 4,000 page faults,
     * which a failed allocation turns into SIGBUS inside the caller's close).
     */
    struct rusage r0, r1;
    CHECK(getrusage(RUSAGE_SELF, &r0) == 0);
    bsd_windows_close(&w);
    CHECK(getrusage(RUSAGE_SELF, &r1) == 0);
    const long faults = r1.ru_minflt - r0.ru_minflt;
    printf("bsd_windows_close after two 64 KiB windows: %ld page faults (the ring and the copies "
           "hold %zu pages each)\n",
           faults, size / page);
    CHECK(faults >= 0 && faults < 64);
}

/*
 * The daemon's connections other than the one asking (STATUS's own) are gone, their memory
 * unmapped and no longer charged to the uid: polled, 10 s at most.
 */
static void wait_others_gone(void)
{
    for (int i = 0; i < 1000; i++) {
        if (svc_status_of(&dmn, "clients") <= 1 && svc_status_of(&dmn, "clients_closing") == 0 &&
            svc_status_of(&dmn, "inflight_jobs") == 0)
            return;
        svc_sleep_ms(10);
    }
    CHECK(!"the daemon still holds connections that were closed");
}

/*
 * A window whose pages the daemon cannot allocate (its test hook BSD_TEST_FAULT=nomem: as when
 * the memfd, the memory cgroup or strict overcommit has no page left) is that request's error,
 * not a SIGBUS in the daemon's write: the daemon keeps serving, a mapping the client allocated
 * whole is unaffected, and a CTR stream goes on in-process with the same bytes.
 */
static void nomem_is_an_error(const bs_block_cipher *cipher)
{
    svc_stop(&dmn);
    setenv("BSD_TEST_FAULT", "nomem", 1);
    svc_start(&dmn, NULL, NULL);
    unsetenv("BSD_TEST_FAULT");

    bsd_client_opts o = {dmn.socket, 1000, 60000};
    bsd_windows w;
    uint8_t key[BS_KEY_MAX] = {5}, ctr[BS_BLOCK_MAX] = {0};
    static bs_key_schedule ks;
    cipher->set_key(&ks, key);
    CHECK(bsd_windows_open(&w, &o, cipher, key, cipher->key_len, MIB, 8) == 0);
    const uint8_t *mem = NULL;
    CHECK(bsd_windows_submit(&w, 0, ctr, 65536 / cipher->block_len) == 0);
    CHECK(bsd_windows_get(&w, 0, &ks, &mem) == -EREMOTEIO);
    printf("nomem: the window's request refused: %s\n", w.error_text);
    CHECK(strstr(w.error_text, "cannot allocate") != NULL);
    bsd_windows_close(&w);

    bsd_client *c = connect_one();
    uint32_t sid;
    CHECK(bsd_client_map_shm(c, MIB) == 0);
    CHECK(bsd_client_open_session(c, cipher->name, key, cipher->key_len, &sid, NULL) == 0);
    CHECK(bsd_client_keystream(c, sid, ctr, cipher->block_len, MIB / cipher->block_len, 0) == 0);
    bsd_client_close(c);

    const size_t len = 3 * MIB + 123;
    uint8_t *pt = (uint8_t *)calloc(len, 1), *a = (uint8_t *)malloc(len),
            *b = (uint8_t *)malloc(len);
    CHECK(pt != NULL && a != NULL && b != NULL);
    uint8_t iv[32] = {0};
    bsd_source_opts so = {dmn.socket, 0, 1000, 5000, 65536, 3, BSD_OFFLOAD_ALWAYS};
    bs_keystream_source *src = bsd_source_new(&so);
    CHECK(src != NULL);
    static bs_ctr_ctx off, ref;
    bs_ctr_set_source(&off, src);
    CHECK(bs_ctr_set_key(&off, cipher, key, cipher->key_len) == BS_OK);
    CHECK(bs_ctr_set_iv(&off, iv, bs_ctr_iv_len(cipher)) == BS_OK);
    CHECK(bs_ctr_set_key(&ref, cipher, key, cipher->key_len) == BS_OK);
    CHECK(bs_ctr_set_iv(&ref, iv, bs_ctr_iv_len(cipher)) == BS_OK);
    for (size_t at = 0; at < len; at += 65536) {
        size_t n = len - at < 65536 ? len - at : 65536;
        CHECK(bs_ctr_crypt(&off, a + at, pt + at, n) == BS_OK);
    }
    CHECK(bs_ctr_crypt(&ref, b, pt, len) == BS_OK);
    CHECK(memcmp(a, b, len) == 0);
    CHECK(bsd_source_fallback_reason(src) == -EREMOTEIO);
    bs_ctr_clear(&off);
    bs_ctr_clear(&ref);
    src->ops->free(src);
    free(pt);
    free(a);
    free(b);
    CHECK(svc_status_of(&dmn, "clients") >= 1);
    printf("nomem: the daemon serves on; the CTR stream fell back in-process, same bytes\n");
}

/* 1 when the n bytes at p all equal v. */
static int all_equal(const uint8_t *p, size_t n, uint8_t v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return 0;
    return 1;
}

/*
 * Closes c, then has a child forked before the close (so that it keeps the mapping) check that
 * the n bytes at p all read v: what the close did to the memory the mapping shares.
 */
static void closed_then_equal(bsd_client *c, const uint8_t *p, size_t n, uint8_t v)
{
    int go[2], st = 0;
    CHECK(pipe(go) == 0);
    const pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        char b;
        close(go[1]);
        _exit(read(go[0], &b, 1) == 1 && all_equal(p, n, v) ? 0 : 1);
    }
    close(go[0]);
    bsd_client_close(c);
    CHECK(write(go[1], "x", 1) == 1);
    close(go[1]);
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 0);
}

/*
 * A mapping the client allocated whole (bsd_client_map_shm) is freed by the client at close (a
 * hole punched in the file), not left to the daemon's unmap; but a child after fork() that
 * closes its copy of the client leaves the parent's memory alone. A child's inherited mapping of
 * the same file shows both.
 */
static void close_frees_own_memory(void)
{
    bsd_client *c = connect_one();
    CHECK(bsd_client_map_shm(c, MIB) == 0);
    uint8_t *m = bsd_client_shm(c, NULL);
    memset(m, 0xa5, MIB);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        bsd_client_close(c); /* the child's: the parent's memory stays */
        _exit(0);
    }
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(all_equal(m, MIB, 0xa5));
    /* After the parent's close: the file's pages are gone, the mapping reads zeroes. */
    closed_then_equal(c, m, MIB, 0);
    printf("bsd_client_close frees a mapping it allocated whole (not in a child after fork)\n");

    /*
     * Not while a request is unanswered (a close after a timeout): the daemon's job may still be
     * writing and checking its window. The words outside the window show whether the hole was
     * punched.
     */
    c = connect_one();
    CHECK(bsd_client_map_shm(c, MIB) == 0);
    m = bsd_client_shm(c, NULL);
    memset(m, 0xa5, MIB);
    const bs_block_cipher *cs[16];
    CHECK(svc_ciphers(cs, 16) > 0);
    uint8_t key[BS_KEY_MAX] = {3}, ctr[BS_BLOCK_MAX] = {0};
    uint32_t sid, rid;
    CHECK(bsd_client_open_session(c, cs[0]->name, key, cs[0]->key_len, &sid, NULL) == 0);
    CHECK(bsd_client_keystream_submit(c, sid, ctr, cs[0]->block_len, MIB / 2 / cs[0]->block_len, 0,
                                      &rid) == 0);
    closed_then_equal(c, m + MIB / 2, MIB / 2, 0xa5);
    printf("bsd_client_close with a request unanswered leaves the mapping to the daemon\n");
}

/*
 * MAP_SHM of fd (size bytes) by hand, its answer read off the socket (nothing else is in
 * flight on c); 0, or the daemon's error code.
 */
static uint32_t map_raw(bsd_client *c, int fd, size_t size, uint32_t id)
{
    uint8_t buf[BSD_HDR_LEN + BSD_MAX_REPLY_PAYLOAD], p[BSD_MAP_SHM_REQ_LEN];
    bsd_map_shm_req m = {size};
    size_t n = bsd_map_shm_req_encode(p, &m);
    bsd_hdr h = {BSD_PROTO_VERSION, BSD_OP_MAP_SHM, id, (uint32_t)n};
    bsd_hdr_encode(buf, &h);
    memcpy(buf + BSD_HDR_LEN, p, n);
    CHECK(bsd_client_send_raw(c, buf, BSD_HDR_LEN + n, fd) == 0);
    recv_all(bsd_client_fd(c), buf, BSD_HDR_LEN);
    bsd_hdr rh;
    CHECK(bsd_hdr_decode(buf, BSD_HDR_LEN, BSD_MAX_REPLY_PAYLOAD, &rh) == BSD_OK);
    CHECK(rh.id == id);
    recv_all(bsd_client_fd(c), buf, rh.len);
    if (rh.op == (BSD_OP_MAP_SHM | BSD_OP_REPLY))
        return 0;
    CHECK(rh.op == (BSD_OP_ERROR | BSD_OP_REPLY));
    bsd_error_rep e;
    CHECK(bsd_error_rep_decode(buf, rh.len, &e) == BSD_OK);
    CHECK(e.code != 0);
    return e.code;
}

int main(void)
{
    const bs_block_cipher *cs[16];
    if (svc_ciphers(cs, 16) == 0)
        return SVC_SKIP;
    const bs_block_cipher *cipher = cs[0];
    svc_init(&dmn);
    static const char *const sets[] = {"max_shm_bytes=64M", "max_shm_bytes_per_uid=96M", NULL};
    svc_start(&dmn, NULL, sets);
    populate_or_not(cipher);
    close_frees_own_memory();
    /* Their mappings count in the uid's 96 MiB until the daemon has processed the closes. */
    wait_others_gone();

    /* A 64 MiB mapping with nothing allocated: the daemon allocates none of it at MAP_SHM. */
    bsd_client *a = connect_one();
    int fd = untouched_memfd(64 * MIB);
    CHECK(map_raw(a, fd, 64 * MIB, 0x100) == 0);
    const uint64_t at_map = allocated_bytes(fd);
    printf("an untouched 64 MiB memfd after MAP_SHM: %llu bytes allocated\n",
           (unsigned long long)at_map);
    CHECK(at_map == 0);
    /* One window of keystream: the daemon's writes allocate that window, not the mapping. */
    uint8_t key[BS_KEY_MAX] = {7}, ctr[32] = {0};
    uint32_t sid, rid;
    CHECK(bsd_client_open_session(a, cipher->name, key, cipher->key_len, &sid, NULL) == 0);
    const uint64_t nblocks = MIB / cipher->block_len;
    CHECK(bsd_client_keystream_submit(a, sid, ctr, cipher->block_len, nblocks, 8 * MIB, &rid) == 0);
    CHECK(bsd_client_wait(a, rid, 60000) == 0);
    const uint64_t after_one = allocated_bytes(fd);
    printf("after one 1 MiB window of keystream: %llu bytes allocated\n",
           (unsigned long long)after_one);
    CHECK(after_one >= nblocks * cipher->block_len && after_one <= 2 * MIB);
    /* The daemon counted the system calls it made for it (STATUS syscalls_total). */
    CHECK(svc_status_of(&dmn, "syscalls_total") > 0);

    /*
     * The uid's share: 64 MiB held by a, so another connection of the same uid may map 32 MiB
     * more and not 64 (its own memory, allocated, makes no difference to the charge).
     */
    bsd_client *b = connect_one();
    const long long refused_before = svc_status_of(&dmn, "per_uid_refusals");
    int fb = untouched_memfd(64 * MIB);
    CHECK(map_raw(b, fb, 64 * MIB, 0x200) == BSD_E_BUSY);
    CHECK(svc_status_of(&dmn, "per_uid_refusals") == refused_before + 1);
    CHECK(bsd_client_map_shm(b, 32 * MIB) == 0);
    /* Replacing its own mapping counts the old one out (nothing else holds it). */
    CHECK(bsd_client_map_shm(b, 32 * MIB) == 0);
    CHECK(bsd_client_map_shm(b, 48 * MIB) == -EREMOTEIO);
    CHECK(bsd_client_last_error(b, NULL) == BSD_E_BUSY);
    printf("64 MiB held by one connection: another of the uid got 32 MiB, not 64 or 48 "
           "(max_shm_bytes_per_uid=96M)\n");

    /* Once a is gone and the daemon has unmapped its memory, b may map 64 MiB. */
    bsd_client_close(a);
    uint32_t code = 1;
    for (int i = 0; i < 500 && code != 0; i++) {
        code = map_raw(b, fb, 64 * MIB, 0x300 + (uint32_t)i);
        if (code != 0) {
            CHECK(code == BSD_E_BUSY);
            svc_sleep_ms(10);
        }
    }
    CHECK(code == 0);
    printf("after the first connection closed, 64 MiB mapped\n");
    close(fb);
    close(fd);
    bsd_client_close(b);
    nomem_is_an_error(cipher);
    CHECK(svc_stop(&dmn) == 0);
    svc_cleanup(&dmn);
    return 0;
}
