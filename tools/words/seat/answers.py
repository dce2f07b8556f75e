"""How a person answers a decision, in their own terms: what to type (`how_to_answer`), what is wrong with what
they typed (`problem_words`: option numbers counted from 1, as the menu shows them), and what their text means
(`read_answer`: the typed text to the decision's wire form, checked by the engine's one check,
`Decision.legal`). The terminal table and the seat view say a decision with these; the engine keeps the data
(runtime/decisions.py), never these words."""

from __future__ import annotations

import re
from typing import Any, Optional

from rulecraft.runtime.decisions import Decision, Problem


def amounts(d: Decision) -> Optional[list[int]]:
    """The amounts of a 'one' decision whose options are distinct whole numbers (and perhaps the pass): a bid, a
    count, which a person types as the number itself rather than by its place in a list; None otherwise."""
    if d.kind != "one" or d.labels:
        return None
    nums = [o for o in d.options if o is not None]
    if not nums or any(type(o) is not int for o in nums) or len(set(nums)) != len(nums):
        return None
    return nums


def say_amounts(d: Decision, nums: list[int]) -> str:
    """How to answer an amount decision: 'Type an amount from 8 to 18, or pass.'"""
    lo, hi = min(nums), max(nums)
    if lo == hi:
        text = f"Type {lo}"
    elif len(nums) == hi - lo + 1:
        text = f"Type an amount from {lo} to {hi}"
    elif len(nums) <= 12:
        ordered = sorted(nums)
        text = "Type " + ", ".join(map(str, ordered[:-1])) + f" or {ordered[-1]}"
    else:
        text = f"Type one of the amounts from {lo} to {hi}"
    return text + (", or pass" if None in d.options else "") + "."


def what_is_asked(d: Decision, rs: Any = None) -> str:
    """What `d` asks, as its heading at the table: the ruleset's prompt; with none, the designer's label of the
    step that asks (`rs`: found through the auction or response window that holds it); with none either, a bid
    of an auction is 'Bid 1 to 4, or pass' (its amounts); else 'Choose'."""
    if d.prompt:
        return d.prompt
    from rulecraft.model.kinds import kind_of
    from rulecraft.tools.chart.sheetplan import designer_label
    from rulecraft.tools.words.seat.help import step_asking

    step = step_asking(rs, d.step) if rs is not None else d.step
    label = designer_label(step) or designer_label(d.step)
    if label:
        from rulecraft.tools.words import Words

        return Words(rs, detail="players").label(label) if rs is not None else label
    if getattr(kind_of(step), "key", "") == "auction":
        nums = amounts(d)
        if not nums:
            return "Bid"
        lo, hi = min(nums), max(nums)
        return f"Bid {lo}" + (f" to {hi}" if hi > lo else "") + (", or pass" if None in d.options else "")
    return "Choose"


def how_to_answer(d: Decision) -> str:
    """How a person answers `d`, in one sentence."""
    nums = amounts(d)
    if nums is not None:
        return say_amounts(d, nums)
    if d.kind == "subset":
        count = f"{d.min}" if d.min == d.max else f"{d.min} to {d.max}"
        many = "number" if d.max == 1 else "numbers"
        every = ", 'all' for every one" if d.max >= len(d.options) > 1 else ""
        return f"Enter {count} option {many}" + (" separated by spaces" if d.max > 1 else "") + every + \
            (", or press Enter to pass." if d.min == 0 else ".")
    if d.kind == "number":
        return f"Enter a number from {d.min} to {d.max}" + (", or 'pass'" if d.optional else "") + "."
    if d.kind == "yesno":
        return "Answer y or n."
    return f"Enter a number from 1 to {len(d.options)}" + (", or 'pass'" if None in d.options else "") + "."


def problem_words(problem: Problem) -> str:
    """What is wrong with an answer, said to a person: option numbers as the menu counts them (from 1)."""
    what, low, high = problem
    if what == "option":
        return f"answer an option number from {low + 1} to {high + 1}"
    if what == "options":
        return f"option numbers run from {low + 1} to {high + 1}"
    if what == "whole":
        return f"enter a whole number from {low} to {high}"
    if what == "yesno":
        return "answer y or n"
    return str(problem)  # the words do not name an option number


def read_answer(d: Decision, text: str) -> Any:
    """The wire-form answer a person's typed `text` stands for, checked (`Decision.legal`); ValueError saying,
    in the person's terms, why it is not one. Options are typed by their number in the menu (from 1), amounts
    (a bid) as the amount itself; 'pass' or 'p' takes the pass where there is one, 'all' every option."""
    wire = _typed(d, text)
    problem = d.legal(wire)
    if problem is not None:
        raise ValueError(problem_words(problem))
    return wire


def _typed(d: Decision, text: str) -> Any:
    """What the text says, in wire form (not checked yet)."""
    word = text.lower()
    if d.kind == "yesno":
        if word in ("y", "yes", "1", "true"):
            return True
        if word in ("n", "no", "0", "false"):
            return False
        raise ValueError("answer y or n")
    if d.kind == "number":
        if d.optional and word in ("", "p", "pass"):
            return None
        try:
            return whole(text)
        except ValueError:
            no_pass = "you cannot pass here: " if word in ("p", "pass") else ""  # (a pass where there is none)
            raise ValueError(f"{no_pass}enter a whole number from {d.min} to {d.max}") from None
    nums = amounts(d)
    if nums is not None:  # a bid or a count: the amount itself is typed
        return _amount(d, nums, text)
    if d.kind == "subset" and d.min == 0 and word in ("p", "pass"):
        return []  # as said: Enter (an empty line) or 'pass' takes none
    if d.kind == "one" and word in ("p", "pass") and None in d.options:
        return d.options.index(None)  # an optional choice (a card, a target): its pass, as for a bid
    if d.kind == "subset" and word in ("a", "all"):
        if d.max < len(d.options):
            raise ValueError(f"you may pick at most {d.max} of the {len(d.options)}")
        return list(range(len(d.options)))
    if d.kind == "one" and not _WHOLE.fullmatch(word.strip()):  # an option by the name the menu shows ('Coin 4'),
        named = " ".join(word.split())                           # case and spaces aside; a number is its number
        for i, o in enumerate(d.options):
            if o is not None and " ".join(d.describe_option(i).lower().split()) == named:
                return i
    parts = text.replace(",", " ").split()
    try:
        picked = [whole(p) - 1 for p in parts]  # the menu counts from 1, the wire from 0
    except ValueError:
        if d.kind == "one":
            raise ValueError(f"enter one option number from 1 to {len(d.options)}, or an option's name") from None
        raise ValueError("enter option numbers") from None
    if d.kind == "one":
        if len(picked) != 1:
            raise ValueError(f"enter one option number from 1 to {len(d.options)}")
        return picked[0]
    return sorted(picked)


_WHOLE = re.compile(r"[+-]?[0-9]{1,18}")


def whole(text: str) -> int:
    """A whole number typed in the digits 0-9 (a digit of another script, '١' or '３', is asked again, as
    docs/reliability.md says; Python's int() took it: issue 38)."""
    if _WHOLE.fullmatch(text) is None:
        raise ValueError(text)
    return int(text)


def _amount(d: Decision, nums: list[int], text: str) -> int:
    """The option a typed amount stands for (or the pass)."""
    if text.lower() in ("p", "pass"):
        if None in d.options:
            return d.options.index(None)
        raise ValueError("you cannot pass here: " + say_amounts(d, nums)[:-1].replace("Type", "type", 1))
    try:
        n = whole(text)
    except ValueError:
        raise ValueError(say_amounts(d, nums)[:-1].replace("Type", "type", 1)) from None
    if n not in nums:
        raise ValueError(f"{n} is not an amount you can choose here: " + say_amounts(d, nums)[:-1].replace("Type", "type", 1))
    return d.options.index(n)
