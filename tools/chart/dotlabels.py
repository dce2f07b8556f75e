"""Small text helpers for DOT sources: quoting, HTML-label escaping, wrapping, safe element ids."""

from __future__ import annotations

import re
import textwrap


def quote(text: str) -> str:
    """A DOT double-quoted string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def esc(text: str) -> str:
    """Text made safe inside a Graphviz HTML-like label (and an HTML attribute)."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("\n", " "))


def attrs(a: dict) -> str:
    """DOT attributes; values in <...> are HTML-like labels and stay unquoted."""
    parts = []
    for k, v in a.items():
        v = str(v)
        parts.append(f"{k}={v}" if v.startswith("<") and v.endswith(">") else f"{k}={quote(v)}")
    return ", ".join(parts)


def text_lines(text: str, width: int, escape: bool = True) -> list[str]:
    """Prose wrapped at spaces into lines of about `width` characters."""
    lines = textwrap.wrap(" ".join(text.split()), width, break_long_words=False, break_on_hyphens=False) or [""]
    return [esc(ln) for ln in lines] if escape else lines


_ATOMS = re.compile(r"\s+|[^\s.(\[]+[.(\[]?|[.(\[]")


def wrap_code(text: str, width: int) -> list[str]:
    """Rule text wrapped at spaces, or after '.', '(' or '[' inside a name too long for a line."""
    lines: list[str] = []
    cur = ""
    for atom in _ATOMS.findall(" ".join(text.split())):
        if atom.isspace():
            if cur:
                cur += " "
            continue
        if cur.strip() and len(cur.rstrip()) + len(atom) > width:
            lines.append(cur.rstrip())
            cur = "  "
        cur += atom
    if cur.strip():
        lines.append(cur.rstrip())
    return lines


def code_lines(text: str, width: int, face: str) -> list[str]:
    """Rule text (the rules language) wrapped and set in a fixed-width face, a statement per line."""
    out: list[str] = []
    for stmt in (s.strip() for s in text.split(";")):
        if not stmt:
            continue
        for ln in wrap_code(stmt, width):
            out.append(f'<FONT FACE="{face}" POINT-SIZE="10">{esc(ln).replace("  ", "&#160; ")}</FONT>')
    return out or [""]


def safe_id(text: str) -> str:
    """An id usable in SVG and HTML (and as a URL fragment): letters, digits, '-' and '_'."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-") or "x"
