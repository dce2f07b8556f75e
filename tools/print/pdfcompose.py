"""Placing finished PDF drawings (from Graphviz) onto new pages, scaled and moved, with pypdf.

A drawing, or a rectangle cut out of one, becomes a form XObject drawn with one
`cm ... Do`: its content stream is copied as it is, never parsed, and its resources are
copied once however many pieces are cut from it. That is what keeps assembling many
sheets fast (pypdf's `merge_transformed_page` parses and rewrites every operator).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Sequence

from pypdf import PageObject, PdfReader, PdfWriter
from pypdf.generic import ArrayObject, DecodedStreamObject, DictionaryObject, FloatObject, NameObject


@dataclass(frozen=True, eq=False)
class Piece:
    """A rectangle (x0, y0, x1, y1 in points) of a PDF page."""

    page: PageObject
    box: tuple[float, float, float, float]

    @property
    def size(self) -> tuple[float, float]:
        return self.box[2] - self.box[0], self.box[3] - self.box[1]


def read_page(data: bytes) -> Piece:
    """The first page of a PDF given as bytes, whole."""
    page = PdfReader(io.BytesIO(data)).pages[0]
    mb = page.mediabox
    return Piece(page, (float(mb.left), float(mb.bottom), float(mb.right), float(mb.top)))


class Composer:
    def __init__(self) -> None:
        self.writer = PdfWriter()
        self._pages: dict[int, tuple] = {}  # id(page) -> (its form in the writer, the page)
        self._forms: dict[int, tuple] = {}  # id(piece) -> (its form, the piece)
        self._font_dict: DictionaryObject | None = None

    def _whole(self, page: PageObject):
        """The page as one form XObject (its content compressed), made once per page."""
        if id(page) not in self._pages:
            contents = page.get_contents()
            form = DecodedStreamObject()
            form.set_data(contents.get_data() if contents is not None else b"")
            mb = page.mediabox
            form.update({
                NameObject("/Type"): NameObject("/XObject"),
                NameObject("/Subtype"): NameObject("/Form"),
                NameObject("/BBox"): _array((float(mb.left), float(mb.bottom), float(mb.right), float(mb.top))),
                NameObject("/Resources"): page.get("/Resources", DictionaryObject()).get_object().clone(self.writer),
            })
            self._pages[id(page)] = (self.writer._add_object(form.flate_encode()), page)
        return self._pages[id(page)][0]

    def _form(self, piece: Piece):
        """A piece: its page's form, clipped to the piece's box by a small form around it."""
        if id(piece) not in self._forms:
            whole = self._whole(piece.page)
            mb = piece.page.mediabox
            if piece.box == (float(mb.left), float(mb.bottom), float(mb.right), float(mb.top)):
                ref = whole
            else:
                form = DecodedStreamObject()
                form.set_data(b"/W Do")
                form.update({
                    NameObject("/Type"): NameObject("/XObject"),
                    NameObject("/Subtype"): NameObject("/Form"),
                    NameObject("/BBox"): _array(piece.box),
                    NameObject("/Resources"): DictionaryObject(
                        {NameObject("/XObject"): DictionaryObject({NameObject("/W"): whole})}),
                })
                ref = self.writer._add_object(form)
            self._forms[id(piece)] = (ref, piece)  # keep the piece alive: ids are unique only among the living
        return self._forms[id(piece)][0]

    def _fonts(self) -> DictionaryObject:
        if self._font_dict is None:
            fonts = {}
            for key, base in (("/H", "/Helvetica"), ("/HB", "/Helvetica-Bold")):
                font = DictionaryObject({NameObject("/Type"): NameObject("/Font"),
                                         NameObject("/Subtype"): NameObject("/Type1"),
                                         NameObject("/BaseFont"): NameObject(base),
                                         NameObject("/Encoding"): NameObject("/WinAnsiEncoding")})
                fonts[NameObject(key)] = self.writer._add_object(font)
            self._font_dict = DictionaryObject(fonts)
        return self._font_dict

    def add_page(self, size: tuple[float, float], parts: Sequence[tuple[Piece, float, float, float]],
                 rules: Sequence[tuple[float, float, float]] = (), texts: Sequence[tuple] = ()) -> int:
        """A new page of `size` (points) showing each (piece, scale, x, y); x, y place its lower-left corner.

        Each of `rules` = (x0, x1, y) draws a thin gray line (under a heading, over a caption); `texts`
        are (x, y, size, text, bold, gray) lines of plain text (see `text_ops`).
        """
        page = self.writer.add_blank_page(width=size[0], height=size[1])
        names = DictionaryObject()
        ops = []
        for i, (piece, scale, x, y) in enumerate(parts):
            name = NameObject(f"/P{i}")
            names[name] = self._form(piece)
            tx, ty = x - piece.box[0] * scale, y - piece.box[1] * scale
            ops.append(f"q {scale:.5f} 0 0 {scale:.5f} {tx:.3f} {ty:.3f} cm {name} Do Q")
        for x0, x1, y in rules:
            ops.append(f"q 0.55 G 0.6 w {x0:.2f} {y:.2f} m {x1:.2f} {y:.2f} l S Q")
        ops += text_ops(texts)
        resources = DictionaryObject({NameObject("/XObject"): names})
        if texts:
            resources[NameObject("/Font")] = self._fonts()
        page[NameObject("/Resources")] = resources
        content = DecodedStreamObject()
        content.set_data("\n".join(ops).encode("latin-1"))  # text strings are already cp1252 bytes
        page[NameObject("/Contents")] = self.writer._add_object(content.flate_encode())
        return len(self.writer.pages) - 1

    def outline(self, title: str, page_index: int) -> None:
        self.writer.add_outline_item(title=title, page_number=page_index)

    def metadata(self, info: dict) -> None:
        self.writer.add_metadata(info)

    def to_bytes(self) -> bytes:
        buf = io.BytesIO()
        self.writer.write(buf)
        return buf.getvalue()


def _array(box) -> ArrayObject:
    return ArrayObject([FloatObject(round(v, 3)) for v in box])


# ----------------------------------------------------------------------------- plain text (headings, page numbers)

# Advance widths of Helvetica (the PDF base font, never embedded) in 1/1000 em, characters 32-126.
_HELVETICA = [278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
              556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
              1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
              667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
              333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
              556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584]
_EXTRA = {"·": 278, "›": 333, "‹": 333, "’": 222, "‘": 222, "“": 333, "”": 333, "–": 556, "—": 1000, "…": 1000}
_PLAIN = {"→": "->", "⚡": "", "×": "x"}  # outside the base fonts' encoding


def plain(text: str) -> str:
    for a, b in _PLAIN.items():
        text = text.replace(a, b)
    return text


def text_width(text: str, size: float, bold: bool = False) -> float:
    """The width of `text` set in Helvetica at `size` points (bold is about 6% wider)."""
    total = 0
    for ch in plain(text):
        o = ord(ch)
        total += _HELVETICA[o - 32] if 32 <= o <= 126 else _EXTRA.get(ch, 556)
    return total * size / 1000 * (1.06 if bold else 1.0)


def _pdf_string(text: str) -> str:
    raw = plain(text).encode("cp1252", "replace").decode("latin-1")
    return "(" + raw.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def text_ops(items) -> list[str]:
    """PDF operators showing (x, y, size, text, bold, gray) items; x, y is the start of the baseline."""
    ops = []
    for x, y, size, text, bold, gray in items:
        ops.append(f"BT /{'HB' if bold else 'H'} {size:g} Tf {gray:g} g {x:.2f} {y:.2f} Td {_pdf_string(text)} Tj ET")
    return ops
