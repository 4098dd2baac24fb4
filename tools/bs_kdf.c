#include "bs_kdf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <termios.h>
#include <unistd.h>

#include "bs_hex.h"

static int derive(const char *alg, OSSL_PARAM *params, uint8_t *out, size_t len)
{
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, alg, NULL);
    EVP_KDF_CTX *ctx = kdf != NULL ? EVP_KDF_CTX_new(kdf) : NULL;
    int ok = ctx != NULL && EVP_KDF_derive(ctx, out, len, params) == 1;
    EVP_KDF_CTX_free(ctx);
    EVP_KDF_free(kdf);
    return ok ? 0 : -1;
}

int bscli_kdf_scrypt(const char *pass, size_t pass_len, const uint8_t *salt, size_t salt_len,
                     unsigned log_n, unsigned r, unsigned p, uint8_t *out, size_t len)
{
    /* Callers pass checked parameters; this bounds the cost again (1 GiB, one lane). */
    if (log_n < 1 || log_n > 20 || r < 1 || r > 8 || p != 1)
        return -1;
    uint64_t n = (uint64_t)1 << log_n;
    uint32_t rr = r, pp = p;
    /*
     * scrypt needs 128 r (N + 2) bytes plus 128 r p; OpenSSL refuses above maxmem (32 MiB by
     * default), so maxmem is what these parameters need, with 1 MiB to spare.
     */
    uint64_t maxmem = 128 * (uint64_t)r * (n + 2) + 128 * (uint64_t)r * p + ((uint64_t)1 << 20);
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_PASSWORD, (void *)pass, pass_len),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, salt_len),
        OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_N, &n),
        OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_R, &rr),
        OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_P, &pp),
        OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_MAXMEM, &maxmem),
        OSSL_PARAM_construct_end(),
    };
    return derive("SCRYPT", params, out, len);
}

int bscli_kdf_hkdf(const uint8_t *ikm, size_t ikm_len, const uint8_t *salt, size_t salt_len,
                   const char *info, uint8_t *out, size_t len)
{
    char digest[] = "SHA256";
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)ikm, ikm_len),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, salt_len),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info, strlen(info)),
        OSSL_PARAM_construct_end(),
    };
    return derive("HKDF", params, out, len);
}

int bscli_read_key_file(const char *path, uint8_t key[32], char *err, size_t errlen)
{
    /* read(2), not stdio: stdio's buffer would keep the key after fclose (it is not wiped). */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "key file %s: %s", path, strerror(errno));
        return -1;
    }
    uint8_t buf[130];
    size_t n = 0;
    int rerr = 0;
    while (n < sizeof buf) {
        ssize_t r = read(fd, buf + n, sizeof buf - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            rerr = errno;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (rerr != 0) {
        explicit_bzero(buf, sizeof buf);
        snprintf(err, errlen, "key file %s: %s", path, strerror(rerr));
        return -1;
    }
    int rc = -1;
    if (n == 32) {
        memcpy(key, buf, 32);
        rc = 0;
    } else {
        size_t s = 0, e = n;
        while (s < e && isspace(buf[s]))
            s++;
        while (e > s && isspace(buf[e - 1]))
            e--;
        if (e - s == 64 && bs_hex_decode_n((const char *)buf + s, 64, key, 32) == 32)
            rc = 0;
        else
            explicit_bzero(key, 32); /* a bad digit leaves part of the key decoded */
    }
    explicit_bzero(buf, sizeof buf);
    if (rc != 0)
        snprintf(err, errlen, "key file %s: want 32 raw bytes or 64 hex digits", path);
    return rc;
}

/* The first line of fd into out: its length, or -2 when it does not fit (out is then wiped). */
static int read_line_fd(int fd, char *out, size_t outlen)
{
    size_t n = 0;
    int too_long = 0;
    char c;
    for (;;) {
        ssize_t r = read(fd, &c, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0 || c == '\n')
            break;
        if (n + 1 < outlen)
            out[n++] = c;
        else
            too_long = 1; /* read on to the end of the line: nothing is left for a later read */
    }
    c = 0;
    if (too_long) {
        explicit_bzero(out, outlen);
        return -2;
    }
    if (n > 0 && out[n - 1] == '\r')
        n--;
    out[n] = 0;
    return (int)n;
}

/*
 * While echo is off, a fatal signal first puts the terminal back, then goes on to the handler
 * that was there before (seal's, which removes its temporary file) or the default action.
 */
static const int tty_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define TTY_NSIG (sizeof tty_signals / sizeof tty_signals[0])
static struct sigaction tty_prev[TTY_NSIG];
static struct termios tty_saved;
static volatile sig_atomic_t tty_fd = -1;

static void tty_restore_on_signal(int sig)
{
    if (tty_fd >= 0)
        tcsetattr(tty_fd, TCSAFLUSH, &tty_saved);
    (void)!write(tty_fd, "\n", 1);
    for (size_t i = 0; i < TTY_NSIG; i++)
        sigaction(tty_signals[i], &tty_prev[i], NULL);
    /* Blocked until this handler returns, then delivered to the previous disposition. */
    raise(sig);
}

static int ask_tty(const char *prompt, char *out, size_t outlen)
{
    int fd = open("/dev/tty", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct termios old, noecho;
    int have_tty = tcgetattr(fd, &old) == 0;
    if (have_tty) {
        tty_saved = old;
        tty_fd = fd;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = tty_restore_on_signal;
        sigemptyset(&sa.sa_mask);
        for (size_t i = 0; i < TTY_NSIG; i++)
            sigaction(tty_signals[i], &sa, &tty_prev[i]);
        noecho = old;
        noecho.c_lflag &= ~(tcflag_t)ECHO;
        tcsetattr(fd, TCSAFLUSH, &noecho);
    }
    (void)!write(fd, prompt, strlen(prompt));
    int n = read_line_fd(fd, out, outlen);
    (void)!write(fd, "\n", 1);
    if (have_tty) {
        tcsetattr(fd, TCSAFLUSH, &old);
        for (size_t i = 0; i < TTY_NSIG; i++)
            sigaction(tty_signals[i], &tty_prev[i], NULL);
        tty_fd = -1;
    }
    close(fd);
    return n;
}

int bscli_read_passphrase(const char *path, int confirm, char *out, size_t outlen, char *err,
                          size_t errlen)
{
    int n;
    if (path != NULL) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            snprintf(err, errlen, "passphrase file %s: %s", path, strerror(errno));
            return -1;
        }
        n = read_line_fd(fd, out, outlen);
        close(fd);
        if (n == -2) {
            snprintf(err, errlen, "passphrase file %s: the passphrase is longer than %zu bytes",
                     path, outlen - 1);
            return -1;
        }
    } else {
        n = ask_tty("passphrase: ", out, outlen);
        if (n == -2) {
            snprintf(err, errlen, "the passphrase is longer than %zu bytes", outlen - 1);
            return -1;
        }
        if (n < 0) {
            snprintf(err, errlen, "no terminal to ask for a passphrase (use --passphrase-file)");
            return -1;
        }
        if (confirm && n > 0) {
            char again[1024];
            int m = outlen <= sizeof again ? ask_tty("again: ", again, outlen) : -1;
            int same = m == n && memcmp(again, out, (size_t)n) == 0;
            explicit_bzero(again, sizeof again);
            if (!same) {
                snprintf(err, errlen, "the passphrases differ");
                return -1;
            }
        }
    }
    if (n <= 0) {
        snprintf(err, errlen, "empty passphrase");
        return -1;
    }
    return n;
}

int bscli_random(uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t r = getrandom(p, n, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += r;
        n -= (size_t)r;
    }
    return 0;
}
