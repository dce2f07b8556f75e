"""A small HTML checker for the tests: tags balance, ids are unique, every '#anchor' link resolves."""

from __future__ import annotations

from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, tuple]] = []
        self.problems: list[str] = []
        self.ids: dict[str, int] = {}
        self.links: list[str] = []

    def _attrs(self, attrs) -> None:
        for k, v in attrs:
            if k == "id" and v is not None:
                self.ids[v] = self.ids.get(v, 0) + 1
            if k in ("href", "xlink:href"):
                self.links.append(v or "")

    def handle_starttag(self, tag, attrs):
        self._attrs(attrs)
        if tag not in VOID:
            self.stack.append((tag, self.getpos()))

    def handle_startendtag(self, tag, attrs):
        self._attrs(attrs)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack:
            self.problems.append(f"</{tag}> at {self.getpos()} closes nothing")
            return
        open_tag, pos = self.stack.pop()
        if open_tag != tag:
            self.problems.append(f"</{tag}> at {self.getpos()} closes <{open_tag}> opened at {pos}")


def check_html(text: str) -> Checker:
    c = Checker()
    c.feed(text)
    c.close()
    c.problems += [f"<{t}> opened at {p} is never closed" for t, p in c.stack]
    c.problems += [f"id '{i}' is used {n} times" for i, n in c.ids.items() if n > 1]
    # every link: an anchor on this page, or a web address (a page meant to be shared has no relative links)
    c.problems += [f"link '{a}' goes nowhere" for a in c.links
                   if not (a.startswith("#") and a[1:] in c.ids) and not a.startswith(("https://", "http://"))]
    return c
