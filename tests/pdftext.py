"""The text of a PDF page as a reader means it: Unicode NFKC, so a ligature a font sets ('ﬀ') reads as its letters."""

from __future__ import annotations

import unicodedata


def page_text(page) -> str:
    """pypdf page -> its extracted text, NFKC-normalised."""
    return unicodedata.normalize("NFKC", page.extract_text())
