"""What a reader meets on a printed page, measured from the PDF file: text sizes at print size, the share in code type.

Each run of text counts with its size after every transformation on the way to paper: the font size times
the text matrix, the content matrices (`cm`) and the matrices of the form XObjects it is drawn through (a
chart placed on a sheet is a form, scaled). Monospace faces (Courier, '...Mono...') are "code".

The content streams are scanned with regular expressions, not parsed object by object: outside text blocks
only `q`, `Q`, `cm` and `Do` matter, and the path data in between (most of a chart) is skipped at C speed.
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass

LEGIBLE_PT = 8.0  # no printed text smaller than this


@dataclass(frozen=True)
class PrintMeasure:
    pages: int
    smallest_pt: float  # the smallest text on any page, in points at print size
    code_share: float  # the share of characters set in a monospace face
    small_share: float  # the share of characters below LEGIBLE_PT
    sizes: tuple  # (size, characters, monospace) per run, for a closer look

    def summary(self) -> str:
        return (f"{self.pages} pages, smallest text {self.smallest_pt:.1f} pt, "
                f"{self.small_share:.0%} under {LEGIBLE_PT:g} pt, code {self.code_share:.0%}")


_NUM = rb"[+-]?(?:\d+\.?\d*|\.\d+)"
# outside text: the graphics state operators that move text, a form drawn, a whole text block
_OUTER = re.compile(rb"(?<![\w/.])(?:(q)|(Q)|((?:" + _NUM + rb"\s+){6})cm|(/[^\s/\[\]()<>{}%]+)\s*Do"
                    rb"|BT(?![\w])(.*?)(?<![\w/])ET)(?![\w])", re.S)
# inside a text block: every token
_TOKEN = re.compile(rb"\s+|%[^\r\n]*|(\((?:[^()\\]|\\.|\((?:[^()\\]|\\.)*\))*\))|(<[0-9A-Fa-f\s]*>)"
                    rb"|(/[^\s/\[\]()<>{}%]*)|(" + _NUM + rb")|([A-Za-z'\"*][A-Za-z0-9*]*)|([\[\]])|(.)", re.S)


def _mul(m, n):
    """The matrix product m x n of [a b c d e f] matrices (m applied first)."""
    a, b, c, d, e, f = m
    A, B, C, D, E, F = n
    return (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F)


def _scale(m) -> float:
    """The vertical scale of a 2-D matrix [a b c d e f] (how much it magnifies a glyph's height)."""
    a, b, c, d = (float(x) for x in m[:4])
    return math.sqrt(abs(a * d - b * c)) if (a * d - b * c) else math.hypot(c, d)


def _string_len(tok: bytes, hexa: bool) -> int:
    if hexa:
        return len(re.sub(rb"\s", b"", tok[1:-1])) // 2
    return len(re.sub(rb"\\(?:[0-7]{1,3}|.)", b"x", tok[1:-1], flags=re.S))


class _Walker:
    def __init__(self) -> None:
        self.runs: list[tuple[float, int, bool]] = []

    def content(self, data: bytes, resources, ctm, depth: int = 0) -> None:
        fonts = _get(resources, "/Font")
        xobjects = _get(resources, "/XObject")
        stack, font = [], (None, 0.0)  # the font and its size are part of the graphics state
        for m in _OUTER.finditer(data):
            if m.group(1):
                stack.append((ctm, font))
            elif m.group(2):
                ctm, font = stack.pop() if stack else (ctm, font)
            elif m.group(3):
                ctm = _mul(tuple(float(v) for v in m.group(3).split()), ctm)
            elif m.group(4):
                self.form(xobjects, m.group(4).decode("latin-1"), resources, ctm, depth)
            else:
                font = self.text(m.group(5), fonts, ctm, font)

    def form(self, xobjects, name: str, resources, ctm, depth: int) -> None:
        if xobjects is None or depth > 20:
            return
        xo = xobjects.get(name)
        xo = xo.get_object() if xo is not None else None
        if xo is None or xo.get("/Subtype") != "/Form":
            return
        matrix = tuple(float(v) for v in xo.get("/Matrix", (1, 0, 0, 1, 0, 0)))
        own = xo.get("/Resources")
        self.content(xo.get_data(), own.get_object() if own is not None else resources, _mul(matrix, ctm), depth + 1)

    def text(self, block: bytes, fonts, ctm, state) -> tuple:
        """Count the text shown in one BT ... ET block; returns the font and size set at its end."""
        (font, size), tm, args = state, (1, 0, 0, 1, 0, 0), []
        for m in _TOKEN.finditer(block):
            s, h, name, num, op = m.group(1), m.group(2), m.group(3), m.group(4), m.group(5)
            if num is not None:
                args.append(float(num))
            elif name is not None:
                args.append(name.decode("latin-1"))
            elif s is not None or h is not None:
                args.append(_string_len(s or h, h is not None))
            elif op is not None:
                if op == b"Tf" and len(args) >= 2:
                    font, size = args[-2], float(args[-1])
                elif op == b"Tm" and len(args) >= 6:
                    tm = tuple(float(v) for v in args[-6:])
                elif op in (b"Tj", b"TJ", b"'", b'"'):
                    n = sum(a for a in args if isinstance(a, int))
                    self.run(n, size, font, fonts, tm, ctm)
                args = []
        return font, size

    def run(self, n: int, size: float, font, fonts, tm, ctm) -> None:
        if n <= 0:
            return
        fd = fonts.get(font) if fonts is not None and font is not None else None
        fd = fd.get_object() if fd is not None else None
        if fd is not None and fd.get("/Subtype") == "/Type0":
            n = max(1, n // 2)
        base = str(fd.get("/BaseFont", "")) if fd is not None else ""
        mono = "courier" in base.lower() or "mono" in base.lower()
        self.runs.append((round(size * _scale(tm) * _scale(ctm), 2), n, mono))


def _get(resources, key: str):
    if resources is None:
        return None
    value = resources.get(key)
    return value.get_object() if value is not None else None


def measure_pdf(data: bytes) -> PrintMeasure:
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    walker = _Walker()
    for page in reader.pages:
        contents = page.get_contents()
        if contents is None:
            continue
        res = page.get("/Resources")
        walker.content(contents.get_data(), res.get_object() if res is not None else None, (1, 0, 0, 1, 0, 0))
    runs = walker.runs
    total = sum(n for _s, n, _m in runs) or 1
    return PrintMeasure(
        pages=len(reader.pages),
        smallest_pt=min((s for s, _n, _m in runs), default=0.0),
        code_share=sum(n for _s, n, m in runs if m) / total,
        small_share=sum(n for s, n, _m in runs if s < LEGIBLE_PT - 0.05) / total,
        sizes=tuple(runs),
    )


def main(argv=None) -> int:
    """python -m rulecraft.tools.print.pdfmeasure FILE.pdf...: print each file's measures."""
    import sys

    for path in (argv if argv is not None else sys.argv[1:]):
        with open(path, "rb") as fh:
            print(f"{path}: {measure_pdf(fh.read()).summary()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
