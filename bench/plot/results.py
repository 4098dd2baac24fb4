"""Reads bench/RESULTS.md: its sections (with the anchors a Markdown renderer gives their
headings), the tables in them, and the numbers in a line. Used by bench/plot/extract.py (the
plot data) and scripts/check-figures.py (the figures quoted in docs/guidelines.md). Python 3
standard library only.
"""
import os
import re

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(TOP, "bench", "RESULTS.md")

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
# A number as RESULTS writes it: 2,116 or 0.48 (not the digits of a name: bs64, -O2, RV32I).
NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?!\w|\.\d)")


def slug(text):
    """The anchor a GitHub-style renderer gives a heading (before de-duplication)."""
    s = re.sub(r"`|\*|\[|\]\([^)]*\)", "", text)  # inline markup, link targets
    s = s.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)  # punctuation goes (en dashes, colons, brackets, dots)
    return s.replace(" ", "-")


class Section:
    def __init__(self, level, title, anchor, start, parents):
        self.level, self.title, self.anchor, self.start = level, title, anchor, start
        self.parents = parents  # titles of the enclosing headings, outermost first
        self.lines = []  # the section's own lines up to the next heading of any level

    @property
    def text(self):
        return "\n".join(self.lines)

    def __repr__(self):
        return f"Section({self.title!r}, #{self.anchor}, line {self.start})"


def sections(path=RESULTS):
    """Every heading of the file (outside fenced code), in order."""
    out, seen, stack = [], {}, []
    cur = Section(0, "", "", 1, [])
    fenced = False
    for n, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        if FENCE.match(line):
            fenced = not fenced
        m = None if fenced else HEADING.match(line)
        if not m:
            cur.lines.append(line)
            continue
        level, title = len(m.group(1)), m.group(2)
        base = slug(title)
        k = seen.get(base, 0)
        seen[base] = k + 1
        anchor = base if k == 0 else f"{base}-{k}"
        stack = [s for s in stack if s.level < level]
        cur = Section(level, title, anchor, n, [s.title for s in stack])
        stack.append(cur)
        out.append(cur)
    return out


def by_anchor(secs):
    return {s.anchor: s for s in secs}


def find(secs, prefix, under=None):
    """The first section whose title starts with PREFIX (and, with UNDER, one of whose enclosing
    headings starts with UNDER). Raises KeyError naming what was looked for."""
    for s in secs:
        if s.title.startswith(prefix) and (under is None or any(p.startswith(under)
                                                                for p in s.parents)):
            return s
    raise KeyError(f"bench/RESULTS.md has no section '{prefix}'" +
                   (f" under '{under}'" if under else ""))


def with_children(secs, sec):
    """The section's lines and those of the headings nested in it."""
    i = secs.index(sec)
    lines = list(sec.lines)
    for s in secs[i + 1:]:
        if s.level <= sec.level:
            break
        lines += s.lines
    return lines


def tables(sec):
    """The Markdown tables of a section: lists of rows, each a dict from the header cells (and
    from the column numbers) to the cell text, markup kept."""
    out, cur, header = [], None, None
    for line in sec.lines + [""]:
        t = line.strip()
        if t.startswith("|") and t.endswith("|"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", t[1:-1])]
            if header is None:
                header, cur = cells, []
            elif all(re.fullmatch(r":?-+:?", c) for c in cells if c):
                continue
            else:
                row = {h: c for h, c in zip(header, cells)}
                row.update(enumerate(cells))
                cur.append(row)
            continue
        if header is not None:
            out.append((header, cur))
            header, cur = None, None
    return out


def table(sec, *header_has):
    """The first table of SEC whose header cells include each of HEADER_HAS (substrings)."""
    for header, rows in tables(sec):
        if all(any(h in c for c in header) for h in header_has):
            return header, rows
    raise KeyError(f"{sec}: no table with columns {header_has}")


def row(rows, *first_cells):
    """The row whose leading cells equal FIRST_CELLS (markup ignored)."""
    for r in rows:
        if all(plain(r.get(i, "")) == c for i, c in enumerate(first_cells)):
            return r
    raise KeyError(f"no row {first_cells}")


def plain(cell):
    return re.sub(r"\*\*|`", "", cell).strip()


def numbers(text):
    """The numbers in TEXT, as strings without thousands separators, in order."""
    text = re.sub(r"\*\*|`", "", text)
    return [(m.group(1).replace(",", "") + (m.group(2) or "")) for m in NUMBER.finditer(text)]


def num(cell, i=0):
    """The I-th number of a cell, as a float."""
    ns = numbers(cell)
    if len(ns) <= i:
        raise ValueError(f"no number #{i} in '{cell}'")
    return float(ns[i])
