"""Run-time guards on what rules compute: numbers, texts and lists stay small, and building them
counts against the game's step budget, so a hostile ruleset stops with a diagnostic instead of
hanging or eating the memory (docs/security.md lists every guard and the test that proves it); and how a
value is named in the errors that refuse it.
"""

from __future__ import annotations

from itertools import compress
from typing import Any

from ..diagnostics import RuleError, Span
from ..values import Card, Player, Row, ZoneRef

MAX_INT = 2**63  # a whole number beyond this is a runaway (x = x * x), never a game value
MAX_VALUES = 100_000  # characters of a text, or values in a list counting nested lists in full
MAX_CHARS = 1_000_000  # characters of the texts a list or record holds, counted at every reference
MAX_NESTING = 100  # lists and records inside each other
COPY_SHIFT = 4  # building a text or list of n values costs n >> COPY_SHIFT steps of the budget
CALL_COST = 4  # a call of a ruleset function costs about as much time as four steps
_CONTAINERS = frozenset((list, dict, Row))

_SCALAR_RESULTS = ("number", "bool")  # built-ins whose result is always a number, true/false or none
_ARITHMETIC = ("-", "*", "/", "//", "%")  # operators that refuse anything but numbers when the game runs


def failing(message: str, span: Span):
    """A closure that stops the game with MESSAGE: what a node the compiler refused evaluates to."""

    def fn(ctx):
        raise RuleError(message, span)

    fn.failed = True  # type: ignore[attr-defined]  # the compiler leaves such a node to its closure
    return fn


def scalar(node: Any, registry: dict, functions: Any = ()) -> bool:
    """The AST node's value can never be a list, a record or a long text, whatever the declared types: a literal,
    a comparison or class test, 'not', arithmetic other than '+', a built-in whose result is a number or a truth.
    (A coarse type from the compiler is no such promise: a variable declared with a number can hold a list.)"""
    name = type(node).__name__
    if name in ("Num", "Const", "Compare", "IsClass"):
        return True
    if name == "Str":
        return node.is_plain
    if name == "Unary":
        return True  # 'not' gives true/false, '-' a number or an error
    if name == "BinOp":
        return node.op in _ARITHMETIC or (node.op == "and" and scalar(node.left, registry, functions)
                                          and scalar(node.right, registry, functions))
    if name == "Call":
        b = None if node.func in functions else registry.get(node.func)  # a ruleset function may return anything
        return b is not None and b.returns in _SCALAR_RESULTS
    return False


def charge(ctx: Any, n: int, span: Span | None) -> None:
    """Count n units of work (items of a comprehension, a function call, a long copy) against max_steps.

    The units are kept apart from `steps` (which counts instructions, as benchmarks report them);
    the budget is shared: instructions plus work may not pass max_steps.
    """
    try:
        work = ctx.work + n
    except AttributeError:  # the first charge of this game
        work = n
    ctx.work = work
    try:
        budget = ctx.max_steps
        over = ctx.steps + work > budget
    except AttributeError:  # a context without a budget (a test's stand-in for a game)
        return
    if over:
        raise RuleError(f"the game ran more than {budget:,} steps without ending (counting the work of "
                        "building lists and calling functions)", span,
                        "a loop or a list comprehension never ends, or builds ever bigger values", "R002")


def bounded(value: Any, ctx: Any, span: Span | None) -> Any:
    """`value` (the result of an operation) if it stays within the limits; a RuleError otherwise."""
    t = type(value)
    if t is float:
        return finite(value, span)
    if t is bool:
        return value
    if t is int:
        if -MAX_INT <= value <= MAX_INT:
            return value
        raise RuleError(f"a number grew past {MAX_INT:,}", span,
                        "a value that doubles or squares on every pass grows without end: check the loop")
    if t is str or t is list:
        n = len(value)
        if n > MAX_VALUES:
            what = "text" if t is str else "list"
            raise RuleError(f"a {what} of {n:,} {'characters' if t is str else 'values'} is over the limit of "
                            f"{MAX_VALUES:,}", span, "a value that grows on every pass grows without end: check the loop")
        if n >> COPY_SHIFT:
            charge(ctx, n >> COPY_SHIFT, span)
        if t is list:
            nested(value, span)
    return value


MAX_NAME = 1_000  # characters of a name a person is shown for an option ('display:')


def name_shown(text: str, ctx: Any, span: Span | None) -> str:
    """`text` (a decision's display name for one option) if it is a name's size; its making is charged."""
    n = len(text)
    if n > MAX_NAME:
        raise RuleError(f"a display name of {n:,} characters is over the limit of {MAX_NAME:,}", span,
                        "'display:' gives each option a short name a person reads")
    scanned(ctx, n, span)
    return text


def finite(value: float, span: Span | None) -> float:
    """`value`, a decimal, if it is a number: a decimal that grew past the largest one (1.5 cubed forty times) is
    infinity, and infinity less infinity no number at all (NaN), which is not equal to itself: a score of NaN won a
    game it lost, and a log or save of one is no JSON another program reads."""
    if value - value == 0:  # (false for infinity and NaN alone)
        return value
    raise RuleError("a decimal number grew past the largest one" if value == value else
                    "a calculation with decimals gave no number (infinity less infinity, or times zero)", span,
                    "a value that doubles or squares on every pass grows without end: check the loop")


def number(value: Any, span: Span | None) -> Any:
    """`value` (a built-in's number) if it is a finite number within +-MAX_INT; a RuleError otherwise."""
    t = type(value)
    if t is float:
        return finite(value, span)
    if t is int:
        if -MAX_INT <= value <= MAX_INT:
            return value
        raise RuleError(f"a number grew past {MAX_INT:,}", span,
                        "whole numbers of a game stay within this limit: check what makes this one")
    return value


def scanned(ctx: Any, n: int, span: Span | None) -> None:
    """Charge the work of scanning n values (a membership test, a sort, a comparison of lists)."""
    if n >> COPY_SHIFT:
        charge(ctx, n >> COPY_SHIFT, span)


def ranked_work(ctx: Any, keys: list, sorting: bool, span: Span | None) -> None:
    """Charge ordering items by `keys` when the keys are lists or records: every comparison may walk a whole key.

    Charged as it is measured, key by key (a key shared by many items measured once), so a budget too small for the
    work stops it before the keys are all measured: 100,000 items by a key of 100,000 values was measured in full
    (minutes) before the first charge (issue 38). The total charged is the same as charging it at once."""
    if _CONTAINERS.isdisjoint(map(type, keys)):
        return
    factor = len(keys).bit_length() if sorting else 1
    sizes: dict = {}
    pending = 0
    for k in keys:
        if type(k) in _CONTAINERS:
            size = sizes.get(id(k))
            if size is None:
                size = sizes[id(k)] = size_of(k, span)
        else:
            size = 1
        pending += size * factor
        if pending >> 16:  # now and then: the whole units charged, the rest carried
            charge(ctx, pending >> COPY_SHIFT, span)
            pending &= (1 << COPY_SHIFT) - 1
    scanned(ctx, pending, span)


def compared(ctx: Any, a: Any, b: Any, span: Span | None) -> None:
    """Charge the work of comparing a and b when both are lists or records of the same length (Python compares
    those value by value, nested ones in full; lists of different lengths differ at once)."""
    ta = type(a)
    if ta is type(b) and (ta is list or ta is dict) and len(a) == len(b) and len(a):
        scanned(ctx, size_of(a, span), span)


def size_of(value: Any, span: Span | None) -> int:
    """How many values a list or record holds, counting the lists inside it in full (a text counts 1)."""
    if _CONTAINERS.isdisjoint(map(type, value.values() if isinstance(value, dict) else value)):
        return len(value)
    return nested(value, span)


def nested(value: list | dict, span: Span | None) -> int:
    """Raise when a list or record holds itself, nests too deep, expands past MAX_VALUES values, or its texts
    add up to more than MAX_CHARS characters; else return how many values it holds, nested ones in full.

    Shared parts are measured once but counted at every use ([a, a] is twice a), so a value
    that doubles itself is stopped here instead of in whatever later walks it (texts, saves).
    Whatever type the compiler gave the value, every list built at run time comes here.
    """
    if type(value) is dict and len(value) <= _SMALL:  # a record of a few fields (an auction's result): one pass
        small = _small_record(value)
        if small:
            return small
    items = value.values() if isinstance(value, dict) else value
    types = set(map(type, items))
    if _CONTAINERS.isdisjoint(types):  # flat (the common case, checked in C)
        if str in types and len(value) > 10:  # at most 10 texts of 100,000 characters: 1,000,000
            _text_total(sum([len(x) for x in items if type(x) is str]), span)
        return len(value)
    two = _two_levels(value, items, types, span)  # a record of flat lists (an auction's result): no walk
    if two is not None:
        return two
    sizes: dict[int, int] = {}
    active: set[int] = set()
    chars = [0]

    def size(v: Any, depth: int) -> int:
        key = id(v)
        known = sizes.get(key)
        if known is not None:
            chars[0] += sizes[~key]
            if chars[0] > MAX_CHARS:
                _text_total(chars[0], span)
            return known
        if key in active:
            raise RuleError("a list or record would contain itself", span, "store a copy of the parts you need instead")
        if depth > MAX_NESTING:
            raise RuleError(f"lists or records nested more than {MAX_NESTING} deep", span,
                            "a value that wraps itself on every pass grows without end: check the loop")
        active.add(key)
        total = 0
        before = chars[0]
        for x in (v.values() if isinstance(v, dict) else v):
            total += 1
            tx = type(x)
            if tx in _CONTAINERS:
                total += size(x, depth + 1)
            elif tx is str:
                chars[0] += len(x)
            if total > MAX_VALUES:
                raise RuleError(f"a list or record holds more than {MAX_VALUES:,} values (counting the lists inside it)",
                                span, "a value that grows on every pass grows without end: check the loop")
        if chars[0] > MAX_CHARS:
            _text_total(chars[0], span)
        active.discard(key)
        sizes[key] = total
        sizes[~key] = chars[0] - before  # the characters of its texts, counted again at every other use
        return total

    return size(value, 0)


_SMALL = 10  # fields of a record, or values of a list in it, that _small_record looks at one by one


def _small_record(value: dict) -> int:
    """What `nested` gives for a record of at most _SMALL fields whose values are no texts, or lists of at most
    _SMALL values that are neither texts, lists nor records (so it holds no text, nests two deep at most, and holds
    far fewer than MAX_VALUES values); 0 for any other (it is measured in full). Looked at value by value: for so few,
    cheaper than the sets of types `nested` makes."""
    total = len(value)
    for x in value.values():
        if type(x) in _LOUD:  # (a text, a list, a record or a row: most fields are none of them)
            if type(x) is not list or len(x) > _SMALL or not _LOUD.isdisjoint(map(type, x)):
                return 0
            total += len(x)
    return total


_LOUD = _CONTAINERS | {str}  # what _small_record looks at more closely


def record_scanned(ctx: Any, value: dict, span: Span | None) -> None:
    """`scanned(ctx, nested(value, span), span)` of a record the compiled code built (record(...)), in one call: a
    record of at most _SMALL fields is looked at here as _small_record looks at it (what nested gives, then the scan
    charged as scanned charges it); any other goes through nested."""
    if len(value) <= _SMALL:
        total = len(value)
        fields = value.values()
        for x in compress(fields, map(_LOUD.__contains__, map(type, fields))):  # the loud fields only (told in C)
            if type(x) is not list or len(x) > _SMALL or not _LOUD.isdisjoint(map(type, x)):  # (as _small_record)
                break
            total += len(x)
        else:
            if total >> COPY_SHIFT:
                charge(ctx, total >> COPY_SHIFT, span)
            return
    scanned(ctx, nested(value, span), span)


def _two_levels(value: list | dict, items, types: set, span: Span | None) -> int | None:
    """What `nested` gives for a value whose lists and records hold no lists or records themselves (so none can
    hold the value, and none nests deep), counted in C; None for any other value (it is walked)."""
    total = len(value)
    chars = sum([len(x) for x in items if type(x) is str]) if str in types else 0
    for x in items:
        if type(x) in _CONTAINERS:
            inner = x.values() if isinstance(x, dict) else x
            ts = set(map(type, inner))
            if not _CONTAINERS.isdisjoint(ts):
                return None
            total += len(x)
            if str in ts:
                chars += sum([len(y) for y in inner if type(y) is str])
    if total > MAX_VALUES:
        raise RuleError(f"a list or record holds more than {MAX_VALUES:,} values (counting the lists inside it)",
                        span, "a value that grows on every pass grows without end: check the loop")
    if chars > MAX_CHARS:
        _text_total(chars, span)
    return total


def _text_total(chars: int, span: Span | None) -> None:
    if chars > MAX_CHARS:
        raise RuleError(f"a list or record holds texts of more than {MAX_CHARS:,} characters in all (counting "
                        "every place a text is used)", span,
                        "a value that copies a long text on every pass grows without end: check the loop")


# how a value is named in a rule error ('the card 7H', 'a list of 3') and written as text in a message


def describe(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and not -MAX_INT <= value <= MAX_INT:
        return f"a whole number of about {int(value.bit_length() * 0.30103) + 1:,} digits"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text '{value}'"
    if isinstance(value, Card):
        return f"the card {value.id}"
    if isinstance(value, Player):
        return f"the player {value.name}"
    if isinstance(value, ZoneRef):
        return f"the zone {value.slot}"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if type(value) is dict:
        return "a record"
    return type(value).__name__.lower()


def text_in(v: Any, ctx: Any) -> str:
    """A value written into a text (a log's `{...}`): as `text_of`, a zone by its title, a player's own by whose it is
    ('P2's Hand', 'Pile (left)', never 'hand[1]' or 'piles[left]')."""
    if isinstance(v, ZoneRef):
        return zone_text(v, ctx)
    if isinstance(v, list) and any(isinstance(x, ZoneRef) for x in v):
        return ", ".join(text_in(x, ctx) for x in v)
    return text_of(v)


def zone_text(ref: ZoneRef, ctx: Any) -> str:
    rs = getattr(ctx, "rs", None)
    z = rs.zones.get(ref.zone) if rs is not None else None
    if z is None:
        return str(ref)
    title = z.title or ref.zone.replace("_", " ")
    if ref.key is None:
        return title
    players = getattr(ctx, "players", None) or []
    if z.per == "player" and isinstance(ref.key, int) and 0 <= ref.key < len(players):
        return f"{players[ref.key]}'s {title.removeprefix('the ')}"
    return f"{title} ({(getattr(rs, 'key_titles', None) or {}).get(ref.key) or text_of(ref.key)})"


def text_of(v: Any) -> str:
    """A value as a designer reads it: true/false/none, lists as 'a, b, c'."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return ", ".join(text_of(x) for x in v)
    if type(v) is dict:  # a record: its fields in words, never a Python repr
        return "(" + ", ".join(f"{text_of(k)}: {text_of(x)}" for k, x in v.items()) + ")"
    return str(v)
