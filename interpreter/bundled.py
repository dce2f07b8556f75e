"""Find the rulesets that ship with the package, by name, in a checkout or an installed copy."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from importlib.resources import files

_TITLE = re.compile(r"^title:\s*(.+?)\s*$", re.M)
_ID = re.compile(r"^ruleset:\s*([A-Za-z0-9_.-]+)\s*$", re.M)


@dataclass(frozen=True)
class Bundled:
    name: str
    title: str
    path: str


def bundled_root() -> str:
    return str(files("rulecraft.rulesets"))


def bundled_rulesets(include_examples: bool = True) -> list[Bundled]:
    """Every bundled ruleset file: its id, title and path, sorted by id."""
    root = bundled_root()
    out = []
    for dirpath, _dirs, names in os.walk(root):
        if not include_examples and os.path.basename(dirpath) == "examples":
            continue
        for n in sorted(names):
            if not n.endswith((".yaml", ".yml")):
                continue
            path = os.path.join(dirpath, n)
            try:
                with open(path, encoding="utf-8") as fh:
                    head = fh.read(4000)
            except OSError:
                continue
            m = _ID.search(head)
            if not m:
                continue
            t = _TITLE.search(head)
            title = t.group(1).strip("'\"") if t else m.group(1)
            out.append(Bundled(m.group(1), title, path))
    return sorted(out, key=lambda b: (os.sep + "examples" + os.sep in b.path, b.name))


def resolve(ref: str, base_dir: str | None = None) -> str | None:
    """A path for REF: an existing file path (relative to base_dir if given) or a bundled id."""
    candidates = [ref]
    if base_dir and not os.path.isabs(ref):
        candidates.insert(0, os.path.join(base_dir, ref))
    for c in candidates:
        if os.path.isfile(c):
            return c
    if os.sep in ref or ref.endswith((".yaml", ".yml")):
        return None
    for b in bundled_rulesets():
        if b.name == ref:
            return b.path
    return None
