"""What the generators of embedded/gen/ share: the command line that the build runs them with,
the repository's sources they read, the word-level bit model of the masked AES generators, the
transposition of aes.h, word rotations and Thumb-2's modified immediates, the body of a naked
function of inline assembly, the linear-scan allocators' next-use search and homes, the Thumb-2
and RV32I forms of the AES generators' operations, the RV32I interpreter's straight-line
instructions and the semi-fixsliced generators' check against their model.

Every generator is run by the build (a Meson custom_target in the cipher's folder): it derives
its program, checks it against its model and the known answers, and only then writes its
output files; a failed check fails the build and writes nothing. The command line:

    python3 embedded/gen/NAME.py [INPUT...] OUTPUT...

INPUTs are the files of other generators that this one reads (in the order its docstring
gives), OUTPUTs the files it writes. With no arguments at all, a generator that writes one file
and reads none prints it.
"""
import os
import random
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
M32 = 0xffffffff


def source(path):
    """The text of a file of the repository, PATH relative to its root."""
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


def main(generate, doc, inputs=0, outputs=1, search=None):
    """The shared command line: reads the input paths' texts, calls generate(*texts) (one text
    or, for several outputs, a tuple of them, in the order of the output arguments) and writes
    each output through a temporary file renamed into place. A generator with a search (of its
    priorities) also takes `--search ITERATIONS SEED`: search(iterations, seed)."""
    args = sys.argv[1:]
    if search is not None and len(args) == 3 and args[0] == '--search':
        search(int(args[1]), int(args[2]))
        return
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


class RvHomes(Homes):
    """Homes for the RV32I allocators (aes_rv32.py, aes_semifix_rv32.py): defs the program,
    lines the instructions written so far; a value is spilled with sw to its stack slot (slot 0
    is the output pointer's), reloaded with lw, and a constant ('li') never stored but loaded
    again with li. pending: registers the allocator keeps for later (taken last); used: the
    registers written."""

    def __init__(self, uses, free, defs, lines, clean_bonus):
        super().__init__(uses, free)
        self.defs, self.lines, self.clean_bonus = defs, lines, clean_bonus
        self.is_const = {p for p, (kind, _) in enumerate(defs) if kind == 'li'}
        self.nslots = 1
        self.used, self.pending = set(), set()

    def evict(self, p, keep):
        """Frees the register farthest() picks (clean_bonus added for a value that needs no
        store), its value stored unless a constant or in its slot already."""
        best = self.farthest(keep, lambda v: self.next_use(v, p),
                             lambda v: (self.clean_bonus if v in self.in_slot or
                                        v in self.is_const else 0))
        v = self.holder.pop(best)
        del self.reg_of[v]
        if v not in self.in_slot and v not in self.is_const:
            if v not in self.slot_of:
                self.slot_of[v] = self.free_slots.pop() if self.free_slots else self.nslots
                if self.slot_of[v] == self.nslots:
                    self.nslots += 1
            self.lines.append('sw %s, %d(sp)' % (best, 4 * self.slot_of[v]))
            self.in_slot.add(v)
        return best

    def get_reg(self, p, keep, want=None):
        """want if it is free, else the first free register not pending (pending ones if no
        other), else an evicted one."""
        if want is not None and want in self.free:
            self.free.remove(want)
            r = want
        elif self.free:
            r = ([r for r in self.free if r not in self.pending] or self.free)[0]
            self.free.remove(r)
        else:
            r = self.evict(p, keep)
        self.used.add(r)
        return r

    def fetch(self, v, p, keep):
        """The register of value v, loaded (li or lw) into a new one if it has none."""
        if v in self.reg_of:
            return self.reg_of[v]
        r = self.get_reg(p, keep)
        if v in self.is_const:
            self.lines.append('li %s, 0x%08x' % (r, self.defs[v][1][0]))
        else:
            self.lines.append('lw %s, %d(sp)' % (r, 4 * self.slot_of[v]))
        self.reg_of[v], self.holder[r] = r, v
        return r

    def store_outs(self, outs, end):
        """The outputs (value, pending rotation), rotations resolved, stored through the output
        pointer (reloaded from slot 0) to words 0, 1, ..."""
        for i, (v, r) in enumerate(outs):
            if i == 0:
                op = self.get_reg(end, {w for w, _ in outs})
                self.lines.append('lw %s, 0(sp)' % op)
            src = self.fetch(v, end, {w for w, _ in outs[i:]})
            if r:
                self.lines += rv_rot(src, src, r)
            self.lines.append('sw %s, %d(%s)' % (src, 4 * i, op))
            del self.holder[self.reg_of.pop(v)]
            self.free.append(src)


def rv_rot(d, s, n):
    """RV32I: d = ror(s, n) (t6 the scratch)."""
    return ['slli t6, %s, %d' % (s, 32 - n), 'srli %s, %s, %d' % (d, s, n),
            'or %s, %s, t6' % (d, d)]


def rv_op(kind, d, regs, args):
    """The RV32I lines of an operation of the AES generators' programs (aes_thumb2.py's op()
    kinds ror, srl, sll, eor, and) into d, its operands in regs."""
    if kind == 'ror':
        return rv_rot(d, regs[0], args[1])
    if kind in ('srl', 'sll'):
        return ['%si %s, %s, %d' % (kind, d, regs[0], args[1])]
    if kind in ('eor', 'and'):
        (a, ra), (b, rb) = args
        assert ra == rb
        return ['%s %s, %s, %s' % ('xor' if kind == 'eor' else 'and', d, regs[0], regs[1])]
    raise SystemExit('no RV32I form for %s' % kind)


RV_MEM = re.compile(r'(lw|sw) (\w+), (-?\d+)\((\w+)\)$')


def rv_step(l, reg, mem):
    """Runs one straight-line RV32I line of the generators' forms (lw, sw, li, mv, addi, slli,
    srli, xor, and, or) on reg and mem (dicts); word accesses must be aligned."""
    m = RV_MEM.match(l)
    if m:
        kind, r, off, base = m.groups()
        a = reg[base] + int(off)
        if a % 4:
            raise SystemExit('RV32I: unaligned %s at %#x: %s' % (kind, a, l))
        if kind == 'lw':
            reg[r] = mem[a]
        else:
            mem[a] = reg[r]
        return
    op, rest = l.split(None, 1)
    f = [x.strip() for x in rest.split(',')]
    if op == 'li':
        v = int(f[1], 0)
    elif op == 'mv':
        v = reg[f[1]]
    elif op == 'addi':
        v = (reg[f[1]] + int(f[2])) & M32
    elif op == 'slli':
        v = (reg[f[1]] << int(f[2])) & M32
    elif op == 'srli':
        v = reg[f[1]] >> int(f[2])
    else:
        a, b = reg[f[1]], reg[f[2]]
        v = {'xor': a ^ b, 'and': a & b, 'or': a | b}[op]
    reg[f[0]] = v


def ror(x, n):
    """The 32-bit word x rotated right by n (any integer)."""
    n %= 32
    return ((x >> n) | (x << (32 - n))) & M32 if n else x


def rol(x, n):
    """The 32-bit word x rotated left by n (any integer)."""
    n %= 32
    return ((x << n) | (x >> (32 - n))) & M32 if n else x


def t2_imm(v):
    """Whether the word v is a Thumb-2 modified immediate (an operand of AND, EOR, ORR, BIC):
    a byte, a byte repeated in the half-words' low or high bytes or in all four, or 0x80..0xff
    rotated."""
    b = v & 0xff
    if v in (b, b * 0x00010001, b * 0x01010101, (v >> 8 & 0xff) * 0x01000100):
        return True
    return any(0x80 <= rol(v, k) < 0x100 for k in range(8, 32))


def t2_op(kind, d, regs, args):
    """The Thumb-2 line of a mov (a rotation), andi, eor or and of the AES generators' programs
    into d, its operands in regs."""
    if kind == 'mov':
        (a, ra), = args
        return ('ror %s, %s, #%d' % (d, regs[0], ra) if ra else 'mov %s, %s' % (d, regs[0]))
    if kind == 'andi':
        (a, ra), m = args
        return 'and %s, %s, #0x%08x' % (d, regs[0], ror(m, -ra))
    if kind in ('eor', 'and'):
        (a, ra), (b, rb) = args
        sh = (rb - ra) % 32
        return '%s %s, %s, %s%s' % (kind, d, regs[0], regs[1], ', ror #%d' % sh if sh else '')
    raise SystemExit('no Thumb-2 form for %s' % kind)


def check_rounds(run, model, seed, what, runs):
    """The semi-fixsliced generators' check: run(words, rk, nr) -> (the eight output words,
    stats) against model(words, rk, nr) for AES-128 and AES-256 (10 and 14 rounds) on `runs`
    random blocks and round keys each. Returns {nr: the last run's stats}."""
    rng = random.Random(seed)
    stats = {}
    for nr in (10, 14):
        for _ in range(runs):
            inw = [rng.getrandbits(32) for _ in range(8)]
            rk = [rng.getrandbits(32) for _ in range(8 * (nr + 1))]
            got, st = run(inw, rk, nr)
            if got != model(inw, rk, nr):
                raise SystemExit('%s with %d rounds differs from the model' % (what, nr))
            stats[nr] = st
    return stats


def print_words(words, per_line=14):
    """A search's result, per_line words a line (as the generators' PRIORITY lists)."""
    words = ' '.join(words).split()
    for k in range(0, len(words), per_line):
        print(' '.join(words[k:k + per_line]))
