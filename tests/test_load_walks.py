"""A load walks a ruleset's steps for what the rules do for a hidden reason (model/reasons.py `quiet`) once when no
modifier turns out hidden: the walk made on the draft (loader/build.py) answers for the ruleset made of the same
parts, and gives what a walk of the ruleset gives."""

from __future__ import annotations

from rulecraft.loader import load_ruleset
from rulecraft.model import answers, reasons, steps


def _fresh(rs):
    """What the walks give for `rs` made again from nothing."""
    for cache in (reasons._QUIET, answers._DECLINED, answers._OPENED, steps._ASKING):
        cache.pop(rs, None)
    return reasons.quiet(rs), steps.asking_sequences(rs)


def test_a_ruleset_reading_modifiers_none_hidden_is_walked_once(monkeypatch):
    walks = []
    real = reasons._walk_quiet
    monkeypatch.setattr(reasons, "_walk_quiet", lambda rs, *a: (walks.append(type(rs).__name__), real(rs, *a))[1])
    loaded = load_ruleset("dml")  # (its rules read modifiers, none of them added for a hidden reason)
    assert loaded.ok
    assert walks == ["_Draft"]  # the checks (W328, W331) asked the ruleset's, and got the draft's
    kept = reasons._QUIET[loaded.ruleset], steps._ASKING[loaded.ruleset]
    assert _fresh(loaded.ruleset) == kept
    assert walks == ["_Draft", "Ruleset"]


def test_nothing_is_carried_to_a_ruleset_of_other_parts():
    draft = reasons._Draft(zones={}, variables={}, player_variables={}, functions={}, sequences={}, triggers=(),
                           dice={}, modifiers={})
    reasons.quiet(draft)
    other = reasons._Draft(zones={}, variables={}, player_variables={}, functions={}, sequences={}, triggers=(),
                           dice={}, modifiers={})
    reasons.carried(draft, other)  # (equal parts, not the same ones: its steps may have been built again)
    assert other not in reasons._QUIET
    same = reasons._Draft(**{k: getattr(draft, k) for k in (*reasons._PARTS, "functions")})
    reasons.carried(draft, same)
    assert reasons._QUIET[same] is reasons._QUIET[draft]
