"""count() of lists made only to be counted (compiler/expressions.Generator.counted): a literal, a choice between two,
two joined, a ruleset function giving one are counted without making a list, with the same values, work, budget
stops and errors (a division by zero inside the joined lists) as the reference engine."""

from __future__ import annotations

import re

import pytest

import test_engines as engines
from rulecraft.compiler import safesource

_eager = engines._eager  # (stretches made at once, failures raised: as tests/test_engines.py has them)

RULES = """\
ruleset: joined
title: Joined lists counted
players: {min: 2, max: 2, default: 2}
variables: {x: 0, kept: 0}
functions:
  roles:
    params: [n]
    value: "(['odd'] if n % 2 == 1 else []) + (['big'] if 10 / (n - GAP) > 1 else []) + [n * 2, 'any']"
start: game
sequences:
  game:
    kind: game
    steps:
      - for_each: n
        in: "1..9"
        do: ["x += count(roles(n)) + count((['a'] if x > 3 else ['b', 'c']) + [])",
             "kept += count([m for m in 1..n if count(roles(m)) > 2])"]
      - do: "win []"
"""

_LEN = re.compile(r"(?<![+-])= len\(")  # a list made, then counted


def _ruleset(tmp_path_factory, gap: str):
    path = tmp_path_factory.mktemp("joined") / "joined.yaml"
    path.write_text(RULES.replace("GAP", gap), encoding="utf-8")
    return engines._load(str(path))


@pytest.fixture(scope="module", params=["20", "7"])  # (7: 10 / 0 when n is 7, an error in the middle)
def ruleset(request, tmp_path_factory):
    return _ruleset(tmp_path_factory, request.param)


def test_joined_lists_count_the_same_and_stop_at_the_same_work_on_both_engines(ruleset):
    engines._both(ruleset, 0)
    for steps in range(3, 160, 4):  # the budget runs out at every place along the way
        engines._both(ruleset, 0, max_steps=steps)


def test_no_list_is_made_to_be_counted(tmp_path_factory, monkeypatch):
    sources: list = []
    real = safesource.compiled

    def compiled(src, *args, **kwargs):
        sources.append(src)
        return real(src, *args, **kwargs)

    monkeypatch.setattr(safesource, "compiled", compiled)
    engines._play(_ruleset(tmp_path_factory, "20"), 0, "compiled")
    counted = [s for s in sources if " % " in s]  # (the expressions that count roles(n), written inline)
    assert len(counted) >= 2, "no expression of the ruleset was written"
    assert [s for s in counted if _LEN.search(s)] == []
