"""Aligning two long lists of steps in bounded work, for `diff` (tools/diff/steps.py).

difflib's SequenceMatcher is quadratic: two sequences of 40,000 steps, one a shuffle of the other, took hours. Long
lists are first anchored as patience diff does, on the steps that occur once on each side, in the longest order
both sides keep; difflib aligns only the stretches between anchors, when they are short enough.
"""

from __future__ import annotations

import bisect
import difflib

ALIGN_WORK = 4_000_000  # difflib's alignment is quadratic: longer lists are first anchored on their unique steps


def opcodes(a: list, b: list, offset: tuple = (0, 0)) -> list[tuple]:
    """difflib's opcodes for two lists of steps, within bounded work (a sequence of 40,000 steps took hours).

    Short lists go to difflib as they are. Long ones are first anchored as patience diff does: the steps that occur
    once on each side, in the longest order both sides keep; the stretches between anchors are aligned by difflib
    when short enough, else they are one changed stretch (its steps are then paired by `_alike`)."""
    i0, j0 = offset
    if not a or not b or len(a) * len(b) <= ALIGN_WORK:
        return [(t, i1 + i0, i2 + i0, j1 + j0, j2 + j0)
                for t, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()]
    count_a: dict = {}
    for x in a:
        count_a[x] = count_a.get(x, 0) + 1
    where_b: dict = {}
    for j, x in enumerate(b):
        where_b[x] = -1 if x in where_b else j
    pairs = [(i, where_b[x]) for i, x in enumerate(a) if count_a[x] == 1 and where_b.get(x, -1) >= 0]
    anchors = increasing(pairs)
    if not anchors:
        return [("replace", i0, i0 + len(a), j0, j0 + len(b))]
    ops: list[tuple] = []
    pi = pj = 0
    for i, j in anchors + [(len(a), len(b))]:
        if i > pi or j > pj:
            ops += opcodes(a[pi:i], b[pj:j], (i0 + pi, j0 + pj))
        if i < len(a):
            ops.append(("equal", i0 + i, i0 + i + 1, j0 + j, j0 + j + 1))
        pi, pj = i + 1, j + 1
    return ops


def increasing(pairs: list[tuple]) -> list[tuple]:
    """The longest run of (i, j) pairs, in order of i, whose j increase too (patience sorting: n log n)."""
    tops: list[int] = []  # the j ending the best run of each length
    ends: list[int] = []  # the index of that pair
    back = [-1] * len(pairs)
    for k, (_i, j) in enumerate(pairs):
        n = bisect.bisect_left(tops, j)
        back[k] = ends[n - 1] if n else -1
        if n == len(tops):
            tops.append(j)
            ends.append(k)
        else:
            tops[n], ends[n] = j, k
    out, k = [], ends[-1] if ends else -1
    while k >= 0:
        out.append(pairs[k])
        k = back[k]
    return out[::-1]
