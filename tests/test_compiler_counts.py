"""The pass over a written stretch's lines (compiler/positions.place): counts added up along straight paths, ctx.steps
written where a call may read it, positions kept in the table of lines, a local that a name already holds read from
that name. Its lines on their own, and a small game on both engines where a name could go stale."""

import pytest

import test_engines as engines
from rulecraft.compiler.positions import place

_eager = engines._eager  # (stretches made at once, failures raised: as tests/test_engines.py has them)

READ_X = ["try:", "    _x1_1 = _L[_k1]", "except KeyError:", "    raise _unset(_k1, _k2) from None"]
READ_X_AGAIN = ["try:", "    _x2_1 = _L[_k3]", "except KeyError:", "    raise _unset(_k3, _k2) from None"]


def _placed(lines: list) -> tuple[list, list]:
    ns = {"_k1": "x", "_k2": None, "_k3": "x", "_k8": frozenset((list, dict)), "_k9": lambda ctx: None}  # (_k1 and _k3: the same local)
    return place(lines, ns, 7)


def test_counts_are_added_where_read_and_positions_go_to_the_table():
    out, where = _placed(["pc = 3", "n += 1", "_v = 1", "pc = 4", "n += 1", "_k9(ctx)", "if n > lim:",
                          "    return _True"])
    assert out == ["_v = 1", "ctx.steps = n + 2", "_k9(ctx)", "if n + 2 > lim:", "    return _True"]
    assert where == [(3, 1), (4, 2), (4, 2), (4, 2), (4, 2)]  # (the step each line is in, the count n lacks)


def test_branches_meet_with_the_least_count_and_an_else_adds_the_rest():
    out, _ = _placed(["n += 1", "if _v:", "    n += 1", "    n += 1", "while _True:", "    n += 1", "    break"])
    # (3 counted on 'then', 1 without: 'then' adds the 2 more, the 1 they share is added before the loop of steps)
    assert out == ["if _v:", "    pass", "    n += 2", "n += 1", "while _True:", "    n += 1", "    break"]
    out, _ = _placed(["n += 1", "if _v:", "    n += 1", "else:", "    n += 1", "    n += 1", "_k9(ctx)"])
    assert out == ["if _v:", "    pass", "else:", "    pass", "    n += 1", "ctx.steps = n + 2", "_k9(ctx)"]


def test_a_local_held_by_a_name_is_read_from_it():
    out, _ = _placed(READ_X + READ_X_AGAIN)
    assert out[4:] == ["_x2_1 = _x1_1"]


@pytest.mark.parametrize("between", [
    ["_x1_1 = not _x1_1"],  # the name that held it set again
    ["_k9(ctx)"],  # a call, which may set a local
    ["if _v:", "    _k9(ctx)"],  # a call on one of the paths that meet
    ["_L[_k1] = _v"],  # the local set from another name: read from that one
    ["for _v in _w:", "    pass"],  # a loop of an expression
])
def test_a_local_is_read_again_when_its_name_may_be_stale(between):
    out, _ = _placed(READ_X + between + READ_X_AGAIN)
    tail = out[len(out) - (len(READ_X_AGAIN) if "_L[_k3]" in out[-3] else 1):]
    if between == ["_L[_k1] = _v"]:
        assert tail == ["_x2_1 = _v"]
    else:
        assert tail == READ_X_AGAIN, between


HANDLED = ["try:", "    _v = _x1_1.seat", "except AttributeError:", "    _v = _w"]  # (a handler that goes on)


@pytest.mark.parametrize("between", [
    HANDLED,
    ["_v = _k8.isdisjoint(map(type, _w))"],  # a constant set of classes asked: no call of the rules
    ["_record_scanned(ctx, _w, _k2)", "_ans = _decide(ctx, _k2, _k2)"],  # a record's scan, a decision asked
])
def test_a_local_stays_held_through_what_changes_no_local(between):
    out, _ = _placed(READ_X + between + READ_X_AGAIN)
    assert out[-1] == "_x2_1 = _x1_1", between


@pytest.mark.parametrize("body", [["    _L[_k1] = _w", "    _v = _w.seat"], ["    _x1_1 = _w", "    _v = _w.seat"],
                                  ["    for _v in _w:", "        pass"], ["    _k9(ctx)"],
                                  ["    _x1_1 = _w", "    _v = _w.seat", "    _x1_1 = _L[_k1]"]])  # (held again at its end)
def test_a_handler_reads_a_local_again_when_the_try_may_have_changed_it(body):
    """The error may come after the try's first lines ran: a local they set, or a name they set, is not held by the
    name it was held by before the try (nor after a loop or a call of the rules inside it)."""
    out, _ = _placed(READ_X + ["try:", *body, "except AttributeError:", "    _v = _w"] + READ_X_AGAIN)
    assert out[-len(READ_X_AGAIN):] == READ_X_AGAIN, body


LOCALS = """\
ruleset: locals
title: Locals read again in a stretch
players: {min: 2, max: 2, default: 2}
start: game
variables: {total: 0, trail: []}
sequences:
  game:
    kind: game
    steps:
      - do: "let pick = 0"
      - do: "let a = 1"
      - do: "let flag = true"
      - loop: round
        do:
          - do: "total += pick"
          - choose: {player: "players[0]", kind: one, options: "[1, 2, 3]", prompt: "Pick", as: pick}
          - do: "total += pick * 10"
          - do: "a += 1"
          - do: "let b = total"
          - do: "b += 7"
          - do: "trail += a"
          - do: "trail += b"
          - if: "not flag"
            then: ["trail += 'off'"]
          - if: "flag"
            then: ["trail += 'on'"]
          - do: "set flag = total % 20 > 8"
          - if: "total > 60"
            then: ["break round"]
"""


def test_a_local_set_by_an_answer_is_read_again_after_it(tmp_path):
    """`pick`, read before the decision that sets it and after (bots answering inside the running code): the same
    game on both engines."""
    path = tmp_path / "locals.yaml"
    path.write_text(LOCALS, encoding="utf-8")
    rs = engines._load(str(path))
    for seed in range(4):
        assert engines._played(rs, seed, "compiled") == engines._played(rs, seed, "reference"), seed
        engines._both(rs, seed)
    assert engines._written(rs) > 0
