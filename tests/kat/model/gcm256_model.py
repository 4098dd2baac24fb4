#!/usr/bin/env python3
"""An independent model of RIJNDAEL-256-GCM (docs/spec/rijndael256-gcm.md), written from the
specification in Python with integer arithmetic only, sharing no code with core/ref/. It
reproduces the spec's vectors, then prints the extra stanzas of tests/kat/rijndael256-gcm.kat
that the spec does not give (other IV lengths), so that those rest on two independent models.

    python3 tests/kat/model/gcm256_model.py          # checks the spec vectors, prints stanzas
"""


def xtime(a):
    a <<= 1
    return (a ^ 0x11B) if a & 0x100 else a


def gmul8(a, b):
    r = 0
    for i in range(8):
        if (b >> i) & 1:
            r ^= a
        a = xtime(a)
    return r


def sbox(x):
    # multiplicative inverse as x^254, then the affine map
    inv = 1
    for _ in range(254):
        inv = gmul8(inv, x)
    if x == 0:
        inv = 0
    rot = lambda v, n: ((v << n) | (v >> (8 - n))) & 0xFF
    return inv ^ rot(inv, 1) ^ rot(inv, 2) ^ rot(inv, 3) ^ rot(inv, 4) ^ 0x63


SBOX = [sbox(i) for i in range(256)]


def rijndael256(key, block):
    nb, nk, nr = 8, 8, 14
    w = [list(key[4 * i:4 * i + 4]) for i in range(nk)]
    rcon = 1
    for i in range(nk, nb * (nr + 1)):
        t = list(w[i - 1])
        if i % nk == 0:
            t = [SBOX[t[1]] ^ rcon, SBOX[t[2]], SBOX[t[3]], SBOX[t[0]]]
            rcon = xtime(rcon)
        elif i % nk == 4:
            t = [SBOX[b] for b in t]
        w.append([w[i - nk][j] ^ t[j] for j in range(4)])
    s = [[block[r + 4 * c] for c in range(nb)] for r in range(4)]

    def ark(rnd):
        for c in range(nb):
            for r in range(4):
                s[r][c] ^= w[rnd * nb + c][r]

    ark(0)
    for rnd in range(1, nr + 1):
        for r in range(4):
            s[r] = [SBOX[v] for v in s[r]]
        for r, off in enumerate((0, 1, 3, 4)):
            s[r] = s[r][off:] + s[r][:off]
        if rnd != nr:
            for c in range(nb):
                a = [s[r][c] for r in range(4)]
                for r in range(4):
                    s[r][c] = (gmul8(a[r], 2) ^ gmul8(a[(r + 1) % 4], 3) ^ a[(r + 2) % 4] ^
                               a[(r + 3) % 4])
        ark(rnd)
    return bytes(s[r][c] for c in range(nb) for r in range(4))


# GF(2^256) with GCM's reflected order: bit 7 of byte 0 is x^0. Map to an integer whose bit i is
# the coefficient of x^i, multiply as polynomials, reduce by x^256 + x^10 + x^5 + x^2 + 1.
def to_poly(b):
    v = 0
    for i in range(256):
        if (b[i // 8] >> (7 - i % 8)) & 1:
            v |= 1 << i
    return v


def from_poly(v):
    out = bytearray(32)
    for i in range(256):
        if (v >> i) & 1:
            out[i // 8] |= 1 << (7 - i % 8)
    return bytes(out)


def gf_mul(x, y):
    a, b, p = to_poly(x), to_poly(y), 0
    while b:
        if b & 1:
            p ^= a
        a <<= 1
        b >>= 1
    f = (1 << 256) | (1 << 10) | (1 << 5) | (1 << 2) | 1
    for i in range(p.bit_length() - 1, 255, -1):
        if (p >> i) & 1:
            p ^= f << (i - 256)
    return from_poly(p)


def ghash(h, data):
    y = bytes(32)
    for i in range(0, len(data), 32):
        y = gf_mul(bytes(a ^ b for a, b in zip(y, data[i:i + 32])), h)
    return y


def pad(b):
    return b + bytes(-len(b) % 32)


def gcm256(key, iv, aad, pt, taglen=32):
    h = rijndael256(key, bytes(32))
    if len(iv) == 28:
        j0 = iv + b"\x00\x00\x00\x01"
    else:
        j0 = ghash(h, pad(iv) + bytes(24) + (8 * len(iv)).to_bytes(8, "big"))
    ct = bytearray()
    cb = j0
    for i in range(0, len(pt), 32):
        cb = cb[:28] + ((int.from_bytes(cb[28:], "big") + 1) % 2**32).to_bytes(4, "big")
        ks = rijndael256(key, cb)
        ct += bytes(a ^ b for a, b in zip(pt[i:i + 32], ks))
    s = ghash(h, pad(aad) + pad(bytes(ct)) + (8 * len(aad)).to_bytes(16, "big") +
              (8 * len(ct)).to_bytes(16, "big"))
    t = bytes(a ^ b for a, b in zip(rijndael256(key, j0), s))
    return bytes(ct), t[:taglen]


def seq(a, n):
    return bytes((a + i) % 256 for i in range(n))


def main():
    # the spec's vectors first: the model must reproduce them
    ct, t = gcm256(bytes(32), bytes(28), b"", b"")
    assert t.hex() == "4e76ca69967125a9636f3554229556f6e2b2351cb4fd10b4e052afd85bebdfa8"
    ct, t = gcm256(seq(0, 32), seq(0x20, 28), seq(0x40, 20), seq(0x60, 61))
    assert t.hex() == "0bf46e3651608d4416c0a460035da19c74a2325cfecca7e0cdc14dde88f026fd"
    assert ct.hex().startswith("ab258d48d1ad5b75")
    assert gf_mul(seq(0, 32), seq(0x20, 32)).hex() == (
        "aec630b6225a92fc2089182faac31a65a915b1b3035fb3f9018c392a8bc63b60")
    print("# Computed by tests/kat/model/gcm256_model.py (an independent Python model that")
    print("# reproduces the spec's vectors) and checked by the C reference and the fast code.")
    for ivlen, taglen in ((12, 32), (12, 16), (1, 32), (60, 24)):
        key, iv, aad, pt = seq(0, 32), seq(0x20, ivlen), seq(0x40, 20), seq(0x60, 61)
        ct, t = gcm256(key, iv, aad, pt, taglen)
        print(f"\nCipher = RIJNDAEL-256-GCM\nKey = {key.hex()}\nIV = {iv.hex()}\n"
              f"AAD = {aad.hex()}\nPlaintext = {pt.hex()}\nCiphertext = {ct.hex()}\n"
              f"Tag = {t.hex()}")


if __name__ == "__main__":
    main()
