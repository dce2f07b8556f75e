"""Parts of an expression that depend on nothing a game changes, computed once when the expression is generated.

`count([c for c in cards if c is wild])` reads only the ruleset's cards, which never change: its value is the
same in every game. Codegen writes such a part as its value, a constant, after the work charges its evaluation makes
(written out one by one, with their spans: a budget that runs out stops with the same error at the same place).

What proves a part fixed: every name it reads from outside itself has a value fixed at load that no statement can
change in place (numbers, texts, cards, zone refs, lists and table rows of them; a record is refused), and its
closure, run on a context that holds nothing of a game (`_Probe`: its own locals and a work budget), completes
without reaching for anything else (variables, zones, players, chance, the running sequences: any other attribute
of the context stops the probe). Its value must be one no rule can change in place (a number, a text, a card, ...):
a list is made afresh by every evaluation, so it is left to run.

And a local read once, on the next line, before anything else there is worked out, is written into that line
(`read_at_once`, over a written function's lines); past a test that an item is a card, it is not tested again
(`cards_known`).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Callable, Collection, NoReturn, Optional

from ..values import Card, FamilyRef, Row, ZoneRef
from ..dsl import ast as A
from ..dsl.builtins import REGISTRY
from ..dsl.checking import binds_items
from ..dsl.scope import Scope

from .facts import fixed_name

_SIMPLE = (A.Num, A.Const, A.Name)
_FROZEN = (int, float, bool, str, type(None), Card, ZoneRef, FamilyRef)  # no rule changes these in place
_VALUES = (int, float, bool, str, type(None), Card, ZoneRef)  # what a folded part may give
MAX_CHARGES = 16  # a part whose evaluation charges work more often than this is left to run
MAX_WORK = 10_000  # or more work than this: each probe run costs about the work it allows (a stranger's ruleset
# must not make generating an expression slower than running it)
MAX_FROZEN = 10_000  # values looked at to prove a name's value frozen


class _Unfixed(Exception):
    """The part reached for something of a game."""


class _Probe:
    """The context a part is computed in: its own locals and a work budget, nothing of a game."""

    def __init__(self, budget: int) -> None:
        self.locals: dict = {}
        self.steps = 0
        self.work = 0
        self.max_steps = budget

    def __getattr__(self, name: str) -> NoReturn:  # only called for what the probe does not hold
        raise _Unfixed(name)


class Folder:
    """Which parts of the expressions of one generation are fixed; what they are worth and charge."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        # names a node reads from outside itself (None: not known), by id
        self._free: dict[int, tuple[A.Node, Optional[frozenset[str]]]] = {}
        self._frozen: dict[str, bool] = {}  # a fixed name's value cannot change in place
        self._calling: set[str] = set()

    def fold(self, node: A.Expr, closure: Callable[[Any], Any],
             local_names: Collection[str]) -> Optional[tuple[Any, list]]:
        """(value, [(units, span), ...]) when `node` is fixed, else None."""
        if isinstance(node, _SIMPLE) or (isinstance(node, A.Str) and node.is_plain):
            return None  # a constant already (a name's fixed value too, see OperatorNodes._g_Name)
        names = self.free_names(node)
        if names is None or not all(self._fixed_name(n, local_names) for n in names):
            return None
        return probe(closure)

    def _fixed_name(self, name: str, local_names: Collection[str]) -> bool:
        if name in local_names:
            return False
        known = self._frozen.get(name)
        if known is None:
            ok, value = fixed_name(name, self.scope, local_names)
            known = self._frozen[name] = ok and _frozen(value, [MAX_FROZEN])
        return known

    def free_names(self, node: A.Node) -> Optional[frozenset[str]]:
        """The names `node` reads from outside itself (a ruleset function's body included); None when a part of it
        draws on chance or is not known."""
        hit = self._free.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        names = self._names(node)
        self._free[id(node)] = (node, names)
        return names

    def _names(self, node: A.Node) -> Optional[frozenset[str]]:
        if isinstance(node, A.Name):
            return frozenset((node.id,))
        inside: list[tuple[A.Node | _Names, tuple[str, ...]]] = []  # (node, names it binds for it)
        if isinstance(node, A.Comprehension):
            inside = [(node.iterable, ()), (node.element, (node.var,))]
            if node.condition is not None:
                inside.append((node.condition, (node.var,)))
        elif isinstance(node, A.Call) and node.func in self.scope.functions:
            fd = self.scope.functions[node.func]
            if fd.body is None or fd.name in self._calling:
                return None
            self._calling.add(fd.name)
            try:
                body = self.free_names(fd.body)
            finally:
                self._calling.discard(fd.name)
            if body is None:
                return None
            inside = [(a, ()) for a in (*node.args, *(k.value for k in node.kwargs))]
            inside.append((_Names(body - set(fd.params)), ()))
        elif isinstance(node, A.Call) and binds_items(node):
            binding = node.args[0]
            assert isinstance(binding, A.Compare) and isinstance(binding.left, A.Name)  # binds_items says so
            inside = [(binding.right, ())] + [(k.value, (binding.left.id,)) for k in node.kwargs]
        elif isinstance(node, A.Call) and (node.func not in REGISTRY or REGISTRY[node.func].chance):
            return None
        else:
            inside = [(c, ()) for c in node.children()]
        out: set[str] = set()
        for child, bound in inside:
            got = child.names if isinstance(child, _Names) else self.free_names(child)
            if got is None:
                return None
            out |= got - set(bound)
        return frozenset(out)


class _Names:
    """The free names of a ruleset function's body, standing in as one more part of a call."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names


def _frozen(value: Any, left: list) -> bool:
    """No rule can change `value` in place: plain values, and lists and table rows of them (at most MAX_FROZEN
    values looked at)."""
    left[0] -= 1
    if left[0] < 0:
        return False
    t = type(value)
    if t in _FROZEN:
        return True
    if t is list or t is tuple:
        return all(_frozen(v, left) for v in value)
    if t is Row:
        return all(_frozen(v, left) for v in value.values())
    return False


def probe(closure: Callable[[Any], Any]) -> Optional[tuple[Any, list]]:
    """Run `closure` on probes: (value, the work it charges in order as (units, span)), or None when it reaches for
    a game, fails, charges too often or gives a value a rule could change in place.

    Each run allows the charges found so far and stops at the next one with the budget's error, which names its
    span; the run that completes has found them all."""
    from ..diagnostics import RuleError

    charges: list = []
    allowed = 0
    for _ in range(MAX_CHARGES + 1):
        ctx = _Probe(allowed)
        try:
            value = closure(ctx)
        except RuleError as e:
            if e.code != "R002" or ctx.work <= allowed:
                return None  # an error of its own: it runs, and raises it, in the game
            charges.append((ctx.work - allowed, e.span))
            allowed = ctx.work
            if allowed > MAX_WORK:
                return None
            continue
        except Exception:  # noqa: BLE001 - _Unfixed, or anything else: the part runs in the game
            return None
        if ctx.work != allowed or type(value) not in _VALUES:
            return None
        return value, charges
    return None


_SET = re.compile(r"^( *)(_v[0-9]+) = (.+)$")
_LOCAL = re.compile(r"_v[0-9]+\b")  # (no `\b` first: a literal first is found some thirty times faster; no name
# the writer writes holds `_v` and a digit inside it, and a read is only ever folded after `if `, `not `, `(` or `= `)
_ASSIGNS = re.compile(r"(?<![=!<>])=(?!=)")  # (a second `=` that is not a comparison: a chain of assignments)
_FIRST = re.compile(r"(?:if |_v[0-9]+ = )(?:not |\()*")  # what may come before a local read first on its line
_SPLIT = re.compile(r"^( *)if (_v[0-9]+):$")


def read_at_once(lines: list[str], whole: str) -> list[str]:
    """`_vN = E` followed, at its depth, by a line that reads _vN before it works out anything else (`if not
    (_vN == X):`, `if _vN:`, `_vM = _vN + X`), where _vN is read nowhere else in the function (`whole`; in one of
    by_flag's two copies of a loop body, nowhere else in that copy nor outside the two), written with E in place of
    _vN: the same values worked out in the same order, without a local stored and loaded again (two bytecodes each
    time the line runs, in a filter's loop once a card), the last first, so that a line folds again (`_vN = E`
    into `_vM = _vN + X` folded into `if not (_vM > Y):`). A `pass` after another statement of its block is left out."""
    uses = Counter(_LOCAL.findall(whole))
    copies = _copies(lines)  # (few functions have any)
    in_copy: dict[tuple[str, int], int] = Counter()
    for i, c in copies.items():
        for v in _LOCAL.findall(lines[i]):
            in_copy[v, c] += 1
    kept: list[str] = []  # the lines after the one looked at, last first
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i]
        if line.endswith("pass") and line.lstrip() == "pass" and _after_statement(lines, i):
            continue  # (a stand-in after a statement of its block, as by_flag leaves for a test dropped)
        m = _SET.match(line) if " = " in line else None
        if m is not None and kept:
            v, c = m.group(2), copies.get(i, -1)
            alone = uses[v] == 2 if c < 0 or in_copy[v, c] + in_copy[v, c ^ 1] != uses[v] else in_copy[v, c] == 2
            if alone:
                pad, after = m.group(1), kept[-1]
                at = after.find(v, len(pad))
                end = at + len(v)  # (the name ends there: no letter, digit or _ after it)
                if at >= 0 and _pad(after) == len(pad) and _FIRST.fullmatch(after, len(pad), at) and \
                        not (after[end:end + 1].isalnum() or after[end:end + 1] == "_") and \
                        " if " not in after[at:] and not _ASSIGNS.search(m.group(3)):
                    kept[-1] = f"{after[:at]}({m.group(3)}){after[end:]}"
                    continue
        kept.append(line)
    return kept[::-1]


def _after_statement(lines: list[str], i: int) -> bool:
    """Line `i` follows a statement of its block (not the block's header)."""
    pad = _pad(lines[i])
    for j in range(i - 1, -1, -1):
        if _pad(lines[j]) <= pad:
            return _pad(lines[j]) == pad
    return False


def _copies(lines: list[str]) -> dict[int, int]:
    """Which of by_flag's copies of a loop body each line in one lies in (2k and 2k + 1 the two copies of one
    body): `if F:` / `    for X in Y:` / the body / `else:` / the same `for` / the other body."""
    copies: dict[int, int] = {}
    k = 0
    for i, line in enumerate(lines):
        m = _SPLIT.match(line) if line.endswith(":") else None
        if m is None or i + 1 >= len(lines):
            continue
        pad, head = m.group(1), lines[i + 1]
        if not (head.startswith(pad + "    for ") and _pad(head) == len(pad) + 4):
            continue
        first = _body(lines, i + 2, len(pad) + 4)
        if first < len(lines) - 1 and lines[first] == pad + "else:" and lines[first + 1] == head:
            second = _body(lines, first + 2, len(pad) + 4)
            copies.update((j, 2 * k) for j in range(i + 2, first))
            copies.update((j, 2 * k + 1) for j in range(first + 2, second))
            k += 1
    return copies


def _body(lines: list[str], start: int, depth: int) -> int:
    """Where the block that starts at `start`, deeper than `depth`, ends."""
    end = start
    while end < len(lines) and _pad(lines[end]) > depth:
        end += 1
    return end


def _pad(line: str) -> int:
    return len(line) - len(line.lstrip())


_CARD_TEST = re.compile(r"^( *)if (not \(|\(|)isinstance\((_[a-z][a-z0-9_]*), _Card\) and (.*):$")
_BEFORE = ("(", "if ", "= ", "and ", "or ", "else ", ", ")  # what may come before a test dropped: nothing that binds
# tighter than `and` (`not`, a comparison)


def cards_known(lines: list[str]) -> list[str]:
    """Past `if not (isinstance(X, _Card) and T):` / `continue` (a filter's test), to the end of its block, and
    inside `if (isinstance(X, _Card) and T):`, X is a card (no class derives from Card): `type(X) is _Card and ` and
    `isinstance(X, _Card) and ` are left out of the lines there until X is set again (`True and V` is V). T holds
    no `or` nor a choice (`if`), so the test is true only when X is a card. Two tests a card less, in a filter over
    a list that holds cards."""
    out = list(lines)
    for i, line in enumerate(lines):
        m = _CARD_TEST.match(line) if "_Card) and " in line else None
        if m is None:
            continue
        pad, opened, x, rest = len(m.group(1)), m.group(2), m.group(3), m.group(4)
        if opened:
            if not rest.endswith(")"):
                continue
            rest = rest[:-1]
        if not _balanced(rest) or " or " in rest or " if " in rest or "lambda" in rest:
            continue
        if opened == "not (":  # the filter's form: the rest of the block
            if i + 2 >= len(lines) or lines[i + 1] != " " * (pad + 4) + "continue" or _pad(lines[i + 2]) > pad:
                continue
            start, deeper = i + 2, pad - 1
        else:  # the block under the test
            start, deeper = i + 1, pad
        tests = [f"type({x}) is _Card and ", f"isinstance({x}, _Card) and "]
        for j in range(start, len(lines)):
            code = lines[j].lstrip()
            if len(lines[j]) - len(code) <= deeper or _sets(code, x):
                break
            for test in tests:
                at = out[j].find(test)
                while at >= 0:
                    if out[j].endswith(_BEFORE, 0, at):
                        out[j] = out[j][:at] + out[j][at + len(test):]
                        at = out[j].find(test, at)
                    else:
                        at = out[j].find(test, at + 1)
    return out


def _balanced(text: str) -> bool:
    """Every bracket of `text` closed in it, none closed before it opens (`a) and (b` is not)."""
    depth = 0
    for ch in text:
        depth += (ch in "([{") - (ch in ")]}")
        if depth < 0:
            return False
    return depth == 0


def _sets(code: str, x: str) -> bool:
    """The statement `code` may set the local `x` (`x = `, `x += `, `for x in`, `a, x = `; any line that starts
    with it but for a read of its attribute or item)."""
    return (code.startswith(x) and code[len(x):len(x) + 1] not in (".", "[")) or (x in code and (
        code.startswith("for ") or f", {x}" in code))
