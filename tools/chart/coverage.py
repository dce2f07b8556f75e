"""Reading a coverage file (what `rulecraft simulate --coverage` writes) for the flowchart overlay."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field


class CoverageError(ValueError):
    """The coverage file cannot be read or is not a coverage file: a user mistake, reported without traceback."""


@dataclass(frozen=True)
class Coverage:
    counts: dict[str, int]
    games: int = 0
    ruleset: str = ""
    maximum: int = field(default=0)

    def count(self, node_id: str) -> int:
        return self.counts.get(node_id, 0)

    def shade(self, node_id: str, low: int = 1, high: int = 0) -> str:
        """A fill from near white (ran `low` times) to mid blue (ran `high` times), on a log scale.

        Charts pass the smallest and largest counts of their own steps, so each chart uses the
        whole range of shades; the counts themselves are printed in the boxes. Blue gives even
        steps of gray when printed without colour.
        """
        n = max(self.count(node_id), 1)
        high = high or self.maximum
        low = max(1, min(low, high))
        t = 1.0 if high <= low else (math.log(n) - math.log(low)) / (math.log(high) - math.log(low))
        t = min(1.0, max(0.0, t))
        lo, hi = (0xF2, 0xF7, 0xFD), (0x6B, 0xAE, 0xD6)
        return "#" + "".join(f"{round(a + (b - a) * t):02x}" for a, b in zip(lo, hi))

    def per_game(self, node_id: str) -> str:
        n = self.count(node_id)
        if not self.games:
            return f"ran {n:,}×"
        return f"ran {n:,}× ({n / self.games:.3g} a game)"


MAX_COVERAGE_BYTES = 50_000_000  # as for game logs and saves (interpreter/runtime/gamelog.py, savegame.py)
MAX_COUNT = 2 ** 63 - 1  # a count past this was not written by 'simulate'
MAX_NODES = 1_000_000
MAX_ID = 1_000  # characters of a node id


def read_coverage(path: str) -> Coverage:
    """Read a coverage file within the limits of logs and saves: a regular file of at most MAX_COVERAGE_BYTES
    (read by the one reader of inputs, rulecraft.files), JSON nested no deeper than Python can read,
    whole-number counts from 0 to 2^63 - 1; anything else is a CoverageError (exit 2), never a hang, a traceback
    or gigabytes read."""
    from rulecraft.files import InputError, read_regular

    hint = f"write one with 'rulecraft simulate RULESET --games N --coverage {path}'"
    try:  # a regular file only: a FIFO would block, /dev/zero never end
        raw = read_regular(path, MAX_COVERAGE_BYTES, "coverage file")
    except InputError as exc:
        raise CoverageError(exc.message) from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise CoverageError(f"{path} is not UTF-8 text: not a coverage file; {hint}") from None
    except RecursionError:
        raise CoverageError(f"{path} is nested too deeply: not a coverage file; {hint}") from None
    except ValueError as exc:  # not JSON, or a number too long to read
        why = "a number in it is too long" if "digits" in str(exc) else str(exc)
        raise CoverageError(f"{path} is not JSON ({why}); {hint}") from None
    counts = data.get("counts") if isinstance(data, dict) else None
    if not isinstance(counts, dict) or not all(isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
                                               for k, v in counts.items()):
        raise CoverageError(f"{path} is not a coverage file: it needs \"counts\": {{node id: number}}, as "
                            "'rulecraft simulate --coverage' writes")
    if len(counts) > MAX_NODES or any(len(k) > MAX_ID or not 0 <= v <= MAX_COUNT for k, v in counts.items()):
        raise CoverageError(f"{path} is not a coverage file: its counts must be whole numbers from 0 to {MAX_COUNT:,} "
                            f"for at most {MAX_NODES:,} node ids of at most {MAX_ID} characters")
    games = data.get("games", 0)
    games = games if isinstance(games, int) and not isinstance(games, bool) and 0 <= games <= MAX_COUNT else 0
    name = data.get("ruleset")
    name = name[:MAX_ID] if isinstance(name, str) and name[:MAX_ID].isprintable() else ""  # quoted in a warning: an
    # escape sequence or a bidirectional control in it would drive or reorder the terminal
    return Coverage(dict(counts), games, name, max(counts.values(), default=0))


def mismatch(cov: Coverage, graph, name: str) -> str | None:
    """A warning when the coverage file was written for another ruleset (its node ids are not in the graph)."""
    if cov.ruleset and cov.ruleset != name:
        return f"the coverage file is for ruleset '{cov.ruleset}', not '{name}'"
    if cov.counts:
        unknown = [k for k in cov.counts if k not in graph.nodes]
        if len(unknown) > len(cov.counts) / 2:
            return f"{len(unknown)} of the {len(cov.counts)} nodes in the coverage file are not in this ruleset"
    return None
