"""What the generators of embedded/gen/ share: the command line that the build runs them with,
the repository's sources they read, the word-level bit model of the masked AES generators, the
transposition of aes.h, the body of a naked function of inline assembly and the linear-scan
allocators' next-use search.

Every generator is run by the build (a Meson custom_target in the cipher's folder): it derives
its program, checks it against its model and the known answers, and only then writes its
output files; a failed check fails the build and writes nothing. The command line:

    python3 embedded/gen/NAME.py [INPUT...] OUTPUT...

INPUTs are the files of other generators that this one reads (in the order its docstring
gives), OUTPUTs the files it writes. With no arguments at all, a generator that writes one file
and reads none prints it.
"""
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
M32 = 0xffffffff


def source(path):
    """The text of a file of the repository, PATH relative to its root."""
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


def main(generate, doc, inputs=0, outputs=1):
    """The shared command line: reads the input paths' texts, calls generate(*texts) (one text
    or, for several outputs, a tuple of them, in the order of the output arguments) and writes
    each output through a temporary file renamed into place."""
    args = sys.argv[1:]
    if not args and not inputs and outputs == 1:
        sys.stdout.write(generate())
        return
    if len(args) != inputs + outputs or any(a.startswith('-') for a in args):
        raise SystemExit(doc)
    texts = []
    for path in args[:inputs]:
        with open(path) as f:
            texts.append(f.read())
    out = generate(*texts)
    if outputs == 1:
        out = (out,)
    for path, text in zip(args[inputs:], out):
        tmp = path + '.tmp'
        with open(tmp, 'w') as f:
            f.write(text)
        os.replace(tmp, path)


# The word-level model of the masked generators: a word is a list of 32 bits, each bit a value
# of the model (an int: a set of variables as a bit mask, XOR its sum).
def w_xor(a, b):
    return [x ^ y for x, y in zip(a, b)]


def w_ror(a, n):
    # bit i of ror(x, n) = bit (i + n) % 32 of x
    return [a[(i + n) % 32] for i in range(32)]


def w_shr(a, n):
    return [a[i + n] if i + n < 32 else 0 for i in range(32)]


def w_shl(a, n):
    return [a[i - n] if i - n >= 0 else 0 for i in range(32)]


def w_and(a, c):
    return [a[i] if (c >> i) & 1 else 0 for i in range(32)]


def w_byte_ror(a, j):
    """The in-byte rotation by j of every byte."""
    lo = 0x01010101 * (0xff >> j)
    return w_xor(w_and(w_shr(a, j), lo), w_and(w_shl(a, 8 - j), ~lo & M32))


def w_swapmove(a, b, m, n):
    t = w_and(w_xor(w_shr(b, n), a), m)
    return w_xor(a, t), w_xor(b, w_shl(t, n))


# aes.h's bs_aes_transpose: (mask, shift, the pairs of words it swaps bits between).
TRANSPOSE = ((0x55555555, 1, ((4, 0), (5, 1), (6, 2), (7, 3))),
             (0x33333333, 2, ((1, 0), (3, 2), (5, 4), (7, 6))),
             (0x0f0f0f0f, 4, ((2, 0), (3, 1), (6, 4), (7, 5))))


def transpose(x, swapmove=w_swapmove):
    """aes.h's bs_aes_transpose of the eight words x, in the generator's own SWAPMOVE."""
    x = list(x)
    for m, n, pairs in TRANSPOSE:
        for i, j in pairs:
            x[i], x[j] = swapmove(x[i], x[j], m, n)
    return x


def asm_body(lines):
    """The body of a naked function: the instructions as one volatile asm statement."""
    return (['{', '    __asm__ volatile('] + ['        "%s\\n"' % l for l in lines] +
            ['    );', '}'])


def next_use(uses, v, p):
    """For the allocators: the first use of value v at or after position p (None: dead)."""
    for u in uses[v]:
        if u >= p:
            return u
    return None


class Homes:
    """Where an allocator's values live (aes_thumb2.py, aes_rv32.py, aes_masked_thumb2.py):
    reg_of (value -> register) and holder (register -> value), the free registers, slot_of
    (value -> stack slot), in_slot (the values that their slot holds now), the free slots and
    keep_slots (values whose slot stays theirs when they die); uses[v]: the positions that
    use value v, in order."""

    def __init__(self, uses, free, reg_of=None):
        self.uses = uses
        self.reg_of = dict(reg_of or {})
        self.holder = {r: v for v, r in self.reg_of.items()}
        self.free = free
        self.slot_of, self.in_slot, self.free_slots, self.keep_slots = {}, set(), [], set()

    def next_use(self, v, p):
        return next_use(self.uses, v, p)

    def farthest(self, keep, next_use, bonus):
        """Belady: the register whose value (not in keep) is next used farthest ahead (never:
        the farthest of all), bonus(v) added (for a value that needs no store, say)."""
        best, bu = None, None
        for r, v in self.holder.items():
            if v in keep:
                continue
            u = next_use(v)
            u = (1 << 30 if u is None else u) + bonus(v)
            if bu is None or u > bu:
                best, bu = r, u
        return best

    def release_dead(self, v, p):
        """If v is not used after position p, its register and (unless in keep_slots) its
        stack slot become free."""
        if self.next_use(v, p + 1) is not None:
            return
        if v in self.reg_of:
            r = self.reg_of.pop(v)
            del self.holder[r]
            self.free.append(r)
        if v in self.slot_of and v not in self.keep_slots:
            self.free_slots.append(self.slot_of.pop(v))
            self.in_slot.discard(v)
