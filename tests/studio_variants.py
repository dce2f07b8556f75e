"""A variant of thousands of rows for the studio's Variants tab (tests/test_studio_server.py and
tests/test_studio_first_user_browser.py)."""

from __future__ import annotations

from pathlib import Path


def many_sequences(folder: Path, sequences: int, parameters: int) -> None:
    """big.yaml (a game of `sequences` sequences and `parameters` parameters) and big-v.yaml, a variant that changes
    one step of every sequence and the default of every parameter: a Variants tab of thousands of rows."""
    out = ["ruleset: big", "title: Big", 'version: "1"', "source: made by the tests",
           "players: {min: 2, max: 4, default: 2}", "parameters:"]
    out += [f"  p{i}: {{default: {i}, min: 0, max: 100000}}" for i in range(parameters)]
    out += ["player_variables:", "  score: 0", "sequences:", "  game:", "    kind: stage", "    title: The game",
            "    steps:"] + [f'      - "call s{i}"' for i in range(sequences)] + ['      - "end game"']
    for i in range(sequences):
        out += [f"  s{i}:", f"    title: Sequence {i}", "    steps:"]
        out += [f"      - id: {k}\n        for_each: p\n        in: \"players\"\n        do: [\"p.score += {n}\"]"
                for k, n in (("a", 1), ("b", 2))]
    (folder / "big.yaml").write_text("\n".join(out + ["start: game", "scoring:", '  score: "p.score"']) + "\n")
    v = ["ruleset: big-v", "extends: big", "title: Big V", 'version: "1"', "source: made by the tests", "parameters:"]
    v += [f"  p{i}: {{default: {i + 1}}}" for i in range(parameters)] + ["overrides:"]
    v += [f'  - replace: s{i}.b\n    with: ["p.score += 3"]' for i in range(sequences)]
    (folder / "big-v.yaml").write_text("\n".join(v) + "\n")
