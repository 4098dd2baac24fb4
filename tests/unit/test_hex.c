/*
 * bs_hex.h, the tree's one hex decoder: every byte value as a digit against a table-free
 * reference, both cases, round trips of random bytes, odd lengths, the capacity bound, a bad
 * character at every position (refused even when the rest is fine), and the length-given form
 * on input that is not NUL-terminated.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bs_hex.h"
#include "testutil.h"

static int ref_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static void test_nibble_all_bytes(void **state)
{
    (void)state;
    int digits = 0;
    for (int c = 0; c < 256; c++) {
        unsigned bad = 0;
        unsigned v = bs_hex_nibble((unsigned char)c, &bad);
        int want = ref_digit(c);
        if (want < 0) {
            if (bad != 1)
                fail_msg("byte 0x%02x taken as a digit (%u)", c, v);
        } else {
            digits++;
            if (bad != 0 || v != (unsigned)want)
                fail_msg("digit '%c': %u, bad %u", c, v, bad);
        }
    }
    assert_int_equal(digits, 22);
}

static void test_round_trip(void **state)
{
    (void)state;
    bs_test_seed();
    for (int t = 0; t < 200; t++) {
        uint8_t in[40], out[40];
        char hex[81];
        size_t n = bs_test_below(41);
        bs_test_fill(in, n);
        for (size_t i = 0; i < n; i++)
            snprintf(hex + 2 * i, 3, t % 2 ? "%02x" : "%02X", in[i]);
        hex[2 * n] = 0;
        memset(out, 0xa5, sizeof out);
        assert_int_equal(bs_hex_decode(hex, out, n), (long)n);
        assert_memory_equal(out, in, n);
        assert_int_equal(out[n < 40 ? n : 39], n < 40 ? 0xa5 : in[39]); /* nothing past n */
    }
    uint8_t b[1];
    assert_int_equal(bs_hex_decode("", b, 0), 0);
    assert_int_equal(bs_hex_decode("aB", b, 1), 1);
    assert_int_equal(b[0], 0xab);
}

static void test_refusals(void **state)
{
    (void)state;
    uint8_t out[8];
    assert_int_equal(bs_hex_decode("abc", out, 8), -1);        /* odd */
    assert_int_equal(bs_hex_decode("0011223344", out, 4), -1); /* 5 bytes > cap 4 */
    assert_int_equal(bs_hex_decode("00112233", out, 4), 4);
    static const char bad[] = {'g',        'G',        ' ', '-', 'x', 0x7f,
                               (char)0x80, (char)0xe0, '/', ':', '@', '`'};
    for (size_t k = 0; k < sizeof bad; k++)
        for (int pos = 0; pos < 8; pos++) {
            char hex[9] = "0123abCD";
            hex[pos] = bad[k];
            if (bs_hex_decode(hex, out, 8) != -1)
                fail_msg("0x%02x at %d accepted", (unsigned char)bad[k], pos);
        }
    /* A NUL inside the given length is a bad character, not the end. */
    assert_int_equal(bs_hex_decode_n("01\0002", 4, out, 8), -1);
    /* The length-given form reads exactly n characters. */
    assert_int_equal(bs_hex_decode_n("0a0bzz", 4, out, 8), 2);
    assert_int_equal(out[0], 0x0a);
    assert_int_equal(out[1], 0x0b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nibble_all_bytes),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
