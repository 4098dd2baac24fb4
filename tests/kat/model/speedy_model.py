#!/usr/bin/env python3
"""An independent model of SPEEDY-r-192 and SPEEDY-r-192-CTR (docs/spec/skinny-speedy.md and
docs/spec/algorithms.md), written from the specification in Python on bit lists, sharing no code
with core/ref/. The round constants are computed here from pi (Machin's formula), not copied.
It reproduces the published vectors of docs/spec/vectors.md, then prints the SPEEDY stanzas of
tests/kat/ctr.kat, so that the C cores are checked against two independent models.

    python3 tests/kat/model/speedy_model.py          # checks the vectors, prints CTR stanzas
"""

# The 6-bit SubBox of Leander, Moos, Moradi, Rasoolzadeh (TCHES 2021(4)), input and output
# with x[6i] the most significant bit.
SBOX = [
    0x08, 0x00, 0x09, 0x03, 0x38, 0x10, 0x29, 0x13, 0x0c, 0x0d, 0x04, 0x07, 0x30, 0x01, 0x20, 0x23,
    0x1a, 0x12, 0x18, 0x32, 0x3e, 0x16, 0x2c, 0x36, 0x1c, 0x1d, 0x14, 0x37, 0x34, 0x05, 0x24, 0x27,
    0x02, 0x06, 0x0b, 0x0f, 0x33, 0x17, 0x21, 0x15, 0x0a, 0x1b, 0x0e, 0x1f, 0x31, 0x11, 0x25, 0x35,
    0x22, 0x26, 0x2a, 0x2e, 0x3a, 0x1e, 0x28, 0x3c, 0x2b, 0x3b, 0x2f, 0x3f, 0x39, 0x19, 0x2d, 0x3d,
]
ALPHA = (0, 1, 5, 9, 15, 21, 26)
N = 192


def pi_fraction_bits(nbits):
    """floor(frac(pi) * 2^nbits), from Machin's formula in fixed point with guard bits."""
    prec = nbits + 64
    one = 1 << prec

    def arctan_inv(x):
        total, term, k, sign = 0, one // x, 1, 1
        while term:
            total += sign * (term // k)
            term //= x * x
            k += 2
            sign = -sign
        return total

    pi = 16 * arctan_inv(5) - 4 * arctan_inv(239)
    return (pi - 3 * one) >> 64


def constants(count):
    bits = pi_fraction_bits(N * count)
    return [(bits >> (N * (count - 1 - r))) & ((1 << N) - 1) for r in range(count)]


# A state is a list of 192 bits, x[0] the most significant bit of the 192-bit integer.
def to_bits(v):
    return [(v >> (N - 1 - n)) & 1 for n in range(N)]


def from_bits(x):
    v = 0
    for b in x:
        v = (v << 1) | b
    return v


def sub_box(x):
    y = []
    for i in range(32):
        v = 0
        for j in range(6):
            v = (v << 1) | x[6 * i + j]
        s = SBOX[v]
        y += [(s >> (5 - j)) & 1 for j in range(6)]
    return y


def shift_columns(x):
    return [x[6 * ((i + j) % 32) + j] for i in range(32) for j in range(6)]


def mix_columns(x):
    y = []
    for i in range(32):
        for j in range(6):
            b = 0
            for a in ALPHA:
                b ^= x[6 * ((i + a) % 32) + j]
            y.append(b)
    return y


def key_next(k):
    return [k[(7 * n + 1) % N] for n in range(N)]


def xor(x, y):
    return [a ^ b for a, b in zip(x, y)]


def speedy(rounds, key, block):
    """key, block: 24 bytes; returns 24 bytes."""
    k = to_bits(int.from_bytes(key, "big"))
    x = to_bits(int.from_bytes(block, "big"))
    cs = constants(rounds - 1)
    for r in range(rounds - 1):
        x = xor(x, k)
        x = shift_columns(sub_box(x))
        x = shift_columns(sub_box(x))
        x = mix_columns(x)
        x = xor(x, to_bits(cs[r]))
        k = key_next(k)
    x = xor(x, k)
    x = shift_columns(sub_box(x))
    x = sub_box(x)
    k = key_next(k)
    x = xor(x, k)
    return from_bits(x).to_bytes(24, "big")


def ctr(rounds, key, iv, data):
    """Counter block IV(16) || 0^8, incremented as a 192-bit big-endian integer."""
    assert len(iv) in (16, 24)
    ctrv = int.from_bytes(iv + bytes(24 - len(iv)), "big")
    out = bytearray()
    for off in range(0, len(data), 24):
        ks = speedy(rounds, key, ctrv.to_bytes(24, "big"))
        out += bytes(a ^ b for a, b in zip(data[off:off + 24], ks))
        ctrv = (ctrv + 1) % (1 << N)
    return bytes(out)


def check_published():
    assert constants(2)[0] == 0x243F6A8885A308D313198A2E03707344A4093822299F31D0
    assert hex(constants(2)[1]).startswith("0x82efa98ec4e6c89")
    key = bytes.fromhex("764c4f6254e1bff208e95862428faed01584f4207a7e8477")
    pt = bytes.fromhex("a13a632451070e4382a27f26a40682f3fe9ff68028d24fdb")
    want = {
        5: "01da25a93d1cfc5e4c0b74f677eb746c281a260193b7755a",
        6: "88bfd3dc140f38bc53a66687f5307860560ebec41100662d",
        7: "ed3d0ea11c427bd32570df41c6fd66ebbf4916e760ed0943",
    }
    for r, ct in want.items():
        got = speedy(r, key, pt).hex()
        assert got == ct, (r, got)


def det_bytes(seed, n):
    """Deterministic filler (a 32-bit LCG), so the stanzas can be regenerated exactly."""
    out, s = bytearray(), seed & 0xFFFFFFFF
    for _ in range(n):
        s = (s * 1103515245 + 12345) & 0xFFFFFFFF
        out.append(s >> 24)
    return bytes(out)


def main():
    check_published()
    print("# SPEEDY-r-192-CTR, from tests/kat/model/speedy_model.py (independent of core/ref/).")
    print("# Counter block IV(16) || 0^8 (Counter = the whole 24-byte block where the stanza starts")
    print("# elsewhere: a carry across a 64-bit boundary cannot be reached from an IV).")
    key = bytes.fromhex("764c4f6254e1bff208e95862428faed01584f4207a7e8477")
    pt_pub = bytes.fromhex("a13a632451070e4382a27f26a40682f3fe9ff68028d24fdb")
    for r in (5, 6, 7):
        name = "SPEEDY-%d-192-CTR" % r
        stanzas = []
        # IV = the first 16 bytes of the published plaintext; zero plaintext
        stanzas.append((key, pt_pub[:16], None, bytes(24)))
        for seed, length in ((r * 100 + 1, 1), (r * 100 + 2, 23), (r * 100 + 3, 24),
                             (r * 100 + 4, 25), (r * 100 + 5, 100), (r * 100 + 6, 200)):
            stanzas.append((det_bytes(seed, 24), det_bytes(seed + 50, 16), None,
                            det_bytes(seed + 70, length)))
        # IV ending in 0xff bytes: the low 64 bits still start at zero and do not carry
        stanzas.append((det_bytes(r * 100 + 7, 24), bytes.fromhex("00" * 8 + "ff" * 8), None,
                        det_bytes(r * 100 + 77, 72)))
        # whole counter blocks: carries out of the low 64 bits and out of bits 64..127
        for cblock in ("0011223344556677" + "8899aabbccddeeff" + "fffffffffffffffe",
                       "0011223344556677" + "ffffffffffffffff" + "fffffffffffffffd",
                       "00000000000000ff" + "00000000000000ff" + "ffffffffffffffff"):
            stanzas.append((det_bytes(r * 100 + 8, 24), None, bytes.fromhex(cblock),
                            det_bytes(r * 100 + 88, 5 * 24 + 7)))
        for k, iv, cb, p in stanzas:
            c = ctr(r, k, iv if iv is not None else cb, p)
            print()
            print("Cipher = %s" % name)
            print("Key = %s" % k.hex())
            if iv is not None:
                print("IV = %s" % iv.hex())
            else:
                print("Counter = %s" % cb.hex())
            print("Plaintext = %s" % p.hex())
            print("Ciphertext = %s" % c.hex())


if __name__ == "__main__":
    main()
