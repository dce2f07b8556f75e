"""What a reader meets on a printed page, measured from the PDF file: text sizes at print size, the share in code type.

Each run of text counts with its size after every transformation on the way to paper (the
font size times the text and content matrices, so a chart scaled onto a sheet counts at
the size it prints). Monospace faces (Courier, '...Mono...') are "code".
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

LEGIBLE_PT = 8.0  # no printed text smaller than this


@dataclass(frozen=True)
class PrintMeasure:
    pages: int
    smallest_pt: float  # the smallest text on any page, in points at print size
    code_share: float  # the share of characters set in a monospace face
    small_share: float  # the share of characters below LEGIBLE_PT
    sizes: tuple  # (size, characters) per run, for a closer look

    def summary(self) -> str:
        return (f"{self.pages} pages, smallest text {self.smallest_pt:.1f} pt, "
                f"{self.small_share:.0%} under {LEGIBLE_PT:g} pt, code {self.code_share:.0%}")


def _scale(m) -> float:
    """The vertical scale of a 2-D matrix [a b c d e f] (how much it magnifies a glyph's height)."""
    a, b, c, d = (float(x) for x in m[:4])
    return math.sqrt(abs(a * d - b * c)) if (a * d - b * c) else math.hypot(c, d)


def measure_pdf(data: bytes) -> PrintMeasure:
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    runs: list[tuple[float, int, bool]] = []

    def visit(text, cm, tm, font, size):
        n = len(text.strip())
        if not n:
            return
        name = str((font or {}).get("/BaseFont", "")) if hasattr(font, "get") else ""
        mono = "courier" in name.lower() or "mono" in name.lower()
        runs.append((round(float(size) * _scale(tm) * _scale(cm), 2), n, mono))

    for page in reader.pages:
        page.extract_text(visitor_text=visit)
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
