"""The parser's LALR tables, built once per user rather than once per process.

Building them from grammar.lark costs ~120 ms, paid by every `validate`, `play` or language-server start. They
are kept as JSON in the user's own cache folder, named by a hash of the grammar and the versions of Lark and
Python, and loaded with `json` (never Lark's own `cache=True`, which unserialises Python objects from a
predictable path in the shared temporary folder that another user of the machine could fill; docs/security.md). A
missing, damaged or foreign cache, or a read-only folder, only costs the build.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from typing import Optional

import lark
from lark import Lark


def load_or_build(grammar: str, path: Optional[str], transformer) -> Lark:
    """The LALR parser of the grammar: loaded from `path` when it holds this grammar's tables, else built (and
    written there for the next process)."""
    if path is not None:
        try:
            with open(path, encoding="utf-8") as f:
                return Lark.__new__(Lark)._load(json.load(f, object_hook=_untag), transformer=transformer)
        except Exception:  # missing, stale, unreadable or damaged: build it afresh
            pass
    built = Lark(grammar, parser="lalr", start=["expr_start", "stmts_start"], maybe_placeholders=True,
                 keep_all_tokens=True, transformer=transformer)
    if path is not None:
        write(built, path)
    return built


def cache_path(grammar: str) -> Optional[str]:
    """Where this grammar's tables are kept: $RULECRAFT_CACHE (an empty value: no cache), else the user's cache
    folder; named by a hash of the grammar and the versions of Lark and Python, so an edit makes a new file.
    None when the folder is not the user's own or is writable by others (nothing is read from there)."""
    base = os.environ.get("RULECRAFT_CACHE")
    if base is None:
        base = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
                            "rulecraft")
    if not base:
        return None
    key = hashlib.sha256(f"{grammar}\0{lark.__version__}\0{sys.version_info[:2]}".encode()).hexdigest()[:16]
    try:
        os.makedirs(base, mode=0o700, exist_ok=True)
        st = os.stat(base)
    except OSError:
        return None
    if (hasattr(os, "getuid") and st.st_uid != os.getuid()) or st.st_mode & 0o022:
        return None
    return os.path.join(base, f"parser-{key}.json")


def write(lark_: Lark, path: str) -> None:
    """Write the tables as JSON (atomically: a reader never sees half a file); a read-only folder is no error."""
    from lark.lark import Rule, TerminalDef

    data, memo = lark_.memo_serialize([TerminalDef, Rule])
    data["options"] = {k: v for k, v in data["options"].items() if k != "transformer"}
    from ..files import OutputError, write_output

    try:  # the one writer: a temporary file beside it, then renamed (a reader never sees half a file)
        write_output(path, json.dumps(_tag({"data": data, "memo": memo}), separators=(",", ":")))
    except (OutputError, TypeError, ValueError):
        pass


def _tag(x):
    """JSON for Lark's serialized tables: tuples and dicts with number keys are tagged so they come back as such."""
    if isinstance(x, dict):
        if all(isinstance(k, str) for k in x):
            return {k: _tag(v) for k, v in x.items()}
        return {"#d": [[_tag(k), _tag(v)] for k, v in x.items()]}
    if isinstance(x, tuple):
        return {"#t": [_tag(v) for v in x]}
    if isinstance(x, list):
        return [_tag(v) for v in x]
    if x is None or isinstance(x, (str, int, float)):
        return x
    raise TypeError(f"cannot keep {type(x).__name__} in the parser cache")


def _untag(d: dict):
    if len(d) == 1:
        if "#t" in d:
            return tuple(d["#t"])
        if "#d" in d:
            return {k: v for k, v in d["#d"]}
    return d
