"""`rulecraft schema`: the ruleset JSON Schema as a file, for editors of users who installed with pip."""

from __future__ import annotations

import sys

from rulecraft.loader.schema import load_schema


def text() -> str:
    import json

    return json.dumps(load_schema(), indent=2, ensure_ascii=False) + "\n"


def run(args) -> int:
    out = getattr(args, "output", None) or "-"
    if out == "-":
        sys.stdout.write(text())
        return 0
    from rulecraft.tools.loading import write_bytes

    failed = write_bytes("schema", out, text().encode("utf-8"))
    return failed if failed is not None else 0
