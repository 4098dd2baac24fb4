/*
 * The shared memory a client maps into the daemon is charged to its uid and bounded
 * (max_shm_bytes_per_uid), and the daemon does not allocate a client's mapping for it: a memfd
 * with holes stays unallocated at MAP_SHM, and only the windows asked for are allocated when
 * the daemon writes them. Before, the daemon populated (allocated and cleared) every mapping
 * whole at MAP_SHM, up to max_shm_bytes (1 GiB) a connection.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bsd_client.h"
#include "bsd_proto.h"
#include "bsd_windows.h"
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
    bsd_windows_close(&w);
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
    int go[2];
    CHECK(pipe(go) == 0);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        char b;
        close(go[1]);
        /* After the parent's close: the file's pages are gone, the mapping reads zeroes. */
        _exit(read(go[0], &b, 1) == 1 && all_equal(m, MIB, 0) ? 0 : 1);
    }
    close(go[0]);
    bsd_client_close(c);
    CHECK(write(go[1], "x", 1) == 1);
    close(go[1]);
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 0);
    printf("bsd_client_close frees a mapping it allocated whole (not in a child after fork)\n");
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
    CHECK(svc_stop(&dmn) == 0);
    svc_cleanup(&dmn);
    return 0;
}
