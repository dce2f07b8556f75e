"""Small text helpers for DOT sources: quoting, HTML-label escaping, wrapping, safe element ids.

The one quoting layer of the charts (docs/security.md, "Charts"): a ruleset's text reaches a DOT source only as a
double-quoted string (`quote`) or escaped inside an HTML-like label (`esc`), and a value is written as an HTML-like
label only when it was made by `html` — never because of how its text looks (a title `<x>, href=...` once added
attributes to the overview chart)."""

from __future__ import annotations

import re
import textwrap


def quote(text: str) -> str:
    """A DOT double-quoted string (every line break, U+2028/2029 and NEL too, a Graphviz `\\n`)."""
    return '"' + _BREAKS.sub(r"\\n", text.replace("\\", "\\\\").replace('"', '\\"')) + '"'


_BREAKS = re.compile("\r\n|[\n\r\x85\u2028\u2029]")


class Html(str):
    """An HTML-like label made by `html`: whatever text of a ruleset it holds went through `esc`."""

    __slots__ = ()


def html(body: str) -> Html:
    """The HTML-like label `<body>`; `body` is markup made here, with every ruleset text in it passed through `esc`."""
    return Html("<" + body + ">")


def esc(text: str) -> str:
    """Text made safe inside a Graphviz HTML-like label; a backslash doubled, as Graphviz reads one there as an
    escape ('\\N' the node's name, '\\G' the graph's, '\\L' a line break) and two as one backslash."""
    return _BREAKS.sub(" ", text.replace("\\", "\\\\").replace("&", "&amp;").replace("<", "&lt;")
                       .replace(">", "&gt;").replace('"', "&quot;"))


def attrs(a: dict) -> str:
    """DOT attributes: an `Html` value as it is, any other value quoted (whatever its text looks like); a tooltip's
    backslashes doubled once more, as Graphviz reads its escapes ('\\N': the node's name) after the quoting's."""
    return ", ".join(f"{k}={v}" if isinstance(v, Html) else
                     f"{k}={quote(str(v).replace(chr(92), chr(92) * 2) if k == 'tooltip' else str(v))}"
                     for k, v in a.items())


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
