"""A Benes network of in-word delta swaps for any permutation of the 32 bits of a word (the
looping algorithm), for the generators beside it. A delta swap (shift s, mask m) exchanges
bits p and p + s for every p in m: t = ((x >> s) ^ x) & m; x ^= t ^ (t << s)."""


def benes(P, n=32, full=False):
    """P[src] = dst. Returns the (shift, mask) stages, applied in order: all nine (shifts
    16 8 4 2 1 2 4 8 16) if full, else the non-empty ones."""
    m_in, m_out, mid = {}, {}, [0]

    def rec(P, base, n):
        if n == 2:
            if P[0] == 1:
                mid[0] |= 1 << base
            return
        h = n // 2
        inv = [0] * n
        for s, d in enumerate(P):
            inv[d] = s
        color = [None] * n
        for start in range(n):  # 2-colour: input pairs and output pairs in different halves
            s, c = start, 0
            while color[s] is None:
                color[s] = c
                s2 = s + h if s < h else s - h
                color[s2] = 1 - c
                d = P[s2]
                s = inv[d + h if d < h else d - h]
                c = 1 - color[s2]
        lo, hi = [None] * h, [None] * h
        for a in range(h):
            low, high = (a + h, a) if color[a] == 1 else (a, a + h)
            if color[a] == 1:
                m_in[h] = m_in.get(h, 0) | 1 << (base + a)
            lo[a], hi[a] = P[low] % h, P[high] % h
            if P[low] >= h:
                m_out[h] = m_out.get(h, 0) | 1 << (base + P[low] % h)
        rec(lo, base, h)
        rec(hi, base + h, h)
    rec(P, 0, n)
    seq = [(h, m_in.get(h, 0)) for h in (16, 8, 4, 2)] + [(1, mid[0])]
    seq += [(h, m_out.get(h, 0)) for h in (2, 4, 8, 16)]
    return seq if full else [(s, m) for s, m in seq if m]
