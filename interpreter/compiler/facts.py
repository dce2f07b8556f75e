"""What the writer knows of a node's value before it runs, so it leaves out the run-time checks that value can never
fail (each fact below is what the check itself would find, proved from the tree and the ruleset's fixed values).

Only what no run can contradict counts: a literal, the result of an operator or built-in that makes a value of one
kind, a name whose value is fixed when the ruleset loads. A type the compiler gave a name is no such promise (a
variable declared with a number can hold a list), so it is never read here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

from ..values import CARD_FIELDS, PLAYER_FIELDS, Row
from ..dsl import ast as A
from ..dsl.builtins import REGISTRY
from ..dsl.guards import scalar
from ..dsl.scope import RUNTIME_PLAYER_COUNT, RUNTIME_PLAYERS, FunctionDef, Scope

_NOT_VALUES = ("var", "player_zone", "sequence", "modifier", "event", "dice")  # names read at run time, or refused
_CONTAINER_TYPES = (list, dict, Row)
_ONE_KIND = ("number", "bool")
_LISTING = ("keys", "cards", "flatten", "reversed", "unique")  # built-ins that always give a list (or raise)  # built-ins whose result is always a number, true/false or none


@dataclass(frozen=True)
class ListFact:
    """The node always gives a list (or raises): at most `size` values when known, and `flat` when none of them
    can be a list or a record."""

    size: Optional[int]
    flat: bool


def fixed(node: A.Expr, scope: Scope, local_names) -> tuple[bool, Any]:
    """(True, value) when `node` is a literal or a name whose value is fixed at load (as OperatorNodes._g_Name writes
    a constant for it); (False, None) otherwise."""
    if isinstance(node, (A.Num, A.Const)):
        return True, node.value
    if isinstance(node, A.Str) and node.is_plain:
        return True, "".join(node.parts)  # type: ignore[arg-type]
    if isinstance(node, A.Name):
        return fixed_name(node.id, scope, local_names)
    return False, None


def fixed_name(name: str, scope: Scope, local_names) -> tuple[bool, Any]:
    """(True, value) when the name `name`, read here, has a value fixed at load; (False, None) otherwise."""
    if name in local_names:
        return False, None
    sym = scope.symbols.get(name)
    if sym is None or sym.kind in _NOT_VALUES or sym is RUNTIME_PLAYERS or sym is RUNTIME_PLAYER_COUNT:
        return False, None
    if sym.kind == "const" and (sym.value is RUNTIME_PLAYERS.value or sym.value is RUNTIME_PLAYER_COUNT.value):
        return False, None
    return True, sym.value


def no_container(node: A.Expr, scope: Scope, local_names) -> bool:
    """`node`'s value is never a list or a record (so a comparison with it is never charged as one of lists)."""
    if scalar(node, REGISTRY, scope.functions) or numeric(node, scope) or whole_number(node, scope, local_names):
        return True
    known, value = fixed(node, scope, local_names)
    return known and type(value) not in _CONTAINER_TYPES


def plain_attribute(name: str, scope: Scope) -> bool:
    """`c.name` of a card reads its attribute `name` (as number_attribute says), which is no list or record on any card
    of the ruleset: a comparison with it is never charged as one of lists."""
    return _card_attribute(name, scope, _PLAIN_VALUES)


def number_attribute(name: str, scope: Scope) -> bool:
    """Every card of the ruleset has a number, true/false or none (or nothing) as its attribute `name`, and `c.name`
    of a card reads it (no mark, player variable or field has the name): a list of these is never nested or long in
    text (guards.nested would pass it untouched). Cards and their attributes are fixed when the ruleset loads."""
    return _card_attribute(name, scope, _NUMBER_VALUES)


def _card_attribute(name: str, scope: Scope, kinds: tuple) -> bool:
    """`c.name` of a card reads its attribute `name`, of one of `kinds` (or missing) on every card of the ruleset."""
    if name not in scope.card_attrs or name in scope.marks or name in scope.player_vars or name in scope.player_zones \
            or name in CARD_FIELDS or name in PLAYER_FIELDS:
        return False
    sym = scope.symbols.get("cards")
    if sym is None or sym.kind != "const" or type(sym.value) is not list:
        return False
    return all(type(c.attrs.get(name)) in kinds for c in sym.value)


_NUMBER_VALUES = (int, float, bool, type(None))
_PLAIN_VALUES = (int, float, bool, type(None), str)


def numeric(node: A.Expr, scope: Scope, memo: Optional[dict] = None) -> bool:
    """`node` gives a number, true/false or none, or raises: never a text, a list or a record. `memo` (a writer's,
    kept while its tree lives) holds what was found of each node: a chain a + b + c + ... asked at every `+` was
    walked again each time (quadratic in the expression)."""
    if memo is None:
        return _numeric(node, scope, None)
    key = ("n", id(node))
    if key not in memo:
        memo[key] = (node, _numeric(node, scope, memo))  # (the node kept: its id stays its own)
    return memo[key][1]


def _numeric(node: A.Expr, scope: Scope, memo: Optional[dict]) -> bool:
    if isinstance(node, (A.Num, A.Const, A.Compare, A.IsClass, A.Unary)):
        return True  # 'not' gives true/false, '-' a number or an error
    if isinstance(node, A.BinOp):
        if node.op in ("-", "*", "/", "//", "%"):
            return True  # these refuse anything but numbers when the game runs
        if node.op == "+":  # a number, true/false or none added to anything but a number raises (no value of the
            # language adds itself to one: texts, lists, records, cards and players do not)
            return numeric(node.left, scope, memo) or numeric(node.right, scope, memo)
        return node.op in ("and", "or") and numeric(node.left, scope, memo) and numeric(node.right, scope, memo)
    if isinstance(node, A.Ternary):
        return numeric(node.then, scope, memo) and numeric(node.other, scope, memo)
    if isinstance(node, A.Call):
        body = _body(node, scope)
        if body is not None:  # a ruleset function gives what its body gives
            return _of_function(node, scope, "numeric", False, lambda: numeric(body[0], scope, {}))
        b = None if node.func in scope.functions else REGISTRY.get(node.func)
        return b is not None and b.returns in _ONE_KIND
    return False


def _of_function(node: A.Call, scope: Scope, fact: str, unknown: Any, walk: Callable[[], Any]) -> Any:
    """What `walk` finds of the body of the ruleset function `node` calls, walked once for the ruleset and kept on its
    FunctionDef: forty functions that each call the one before twice were 2^40 walks (and every expression that calls
    one walked its whole chain again). `unknown`, what is known of a body not walked yet, is kept while the walk runs:
    a walk that fails part-way leaves the answer that proves nothing."""
    found = scope.functions[node.func].facts
    if fact not in found:
        found[fact] = unknown
        found[fact] = walk()
    return found[fact]


def _body(node: A.Call, scope: Scope) -> Optional[tuple[A.Expr, frozenset]]:
    """The body of the ruleset function `node` calls and the local names it sees (its parameters: expressions.
    generated_function writes it in the caller's scope with those locals), when the call gives the body's value (its
    arguments as many as its parameters, as CallNodes._user_call writes it; any other call raises); None for a built-in.
    A ruleset function never calls itself (E321): the walk through bodies ends."""
    fd = scope.functions.get(node.func)
    if fd is None or fd.body is None or node.kwargs or len(node.args) != len(fd.params):
        return None
    return fd.body, frozenset(fd.params)


def whole_number(node: A.Expr, scope: Scope, local_names) -> bool:
    """`node` always gives a whole number (never true/false): one written in the rules, the number of players, a count."""
    if isinstance(node, A.Num):
        return type(node.value) is int
    if isinstance(node, A.Name):
        if node.id in local_names:
            return False
        sym = scope.symbols.get(node.id)
        return sym is not None and (sym is RUNTIME_PLAYER_COUNT or (sym.kind == "const" and (
            sym.value is RUNTIME_PLAYER_COUNT.value or type(sym.value) is int)))
    return isinstance(node, A.Call) and node.func == "count" and node.func not in scope.functions


def small_whole(node: A.Expr, scope: Scope, local_names) -> bool:
    """`node` always gives a whole number far inside the bound of numbers (guards.MAX_INT, 2**63), so that the sum or
    difference of two such can never run away: one written in the rules below 2**32, the number of players, a
    count (the length of something held in memory)."""
    if isinstance(node, A.Num):
        return type(node.value) is int and -_SMALL < node.value < _SMALL
    if isinstance(node, A.Name):
        known, value = fixed(node, scope, local_names)
        if known:
            return type(value) is int and -_SMALL < value < _SMALL
    return whole_number(node, scope, local_names)  # (a Name here: the number of players, fixed at no load)


_SMALL = 2**32


def list_fact(node: A.Expr, scope: Scope, local_names, memo: Optional[dict] = None) -> Optional[ListFact]:
    """What is known of the list `node` always gives; None when it may give something else. `memo`: as numeric's
    (a node sits in one scope of its tree, so its local names are the same at every ask)."""
    if memo is None:
        return _list_fact(node, scope, local_names, None)
    key = ("l", id(node))
    if key not in memo:
        memo[key] = (node, _list_fact(node, scope, local_names, memo))
    return memo[key][1]


def _list_fact(node: A.Expr, scope: Scope, local_names, memo: Optional[dict]) -> Optional[ListFact]:
    if isinstance(node, A.ListLit):
        flat = all(no_container(i, scope, local_names) for i in node.items)
        return ListFact(len(node.items), flat)
    if isinstance(node, A.Comprehension):
        if isinstance(node.element, A.Name) and node.element.id == node.var:  # some of the items, as they are
            # (a list's, or a zone's cards: none of them is a list or a record when the list's are not)
            source = list_fact(node.iterable, scope, local_names, memo)
            if source is not None and source.flat:
                return ListFact(None, True)
        return ListFact(None, scalar(node.element, REGISTRY, scope.functions))
    if isinstance(node, A.Range):
        return ListFact(None, True)  # whole numbers
    if players_list(node, scope, local_names):
        return ListFact(None, True)  # the game's players
    if isinstance(node, A.Call) and node.func in scope.functions:
        body = _body(node, scope)  # a ruleset function gives what its body gives
        if body is None:
            return None
        return _of_function(node, scope, "list", None, lambda: list_fact(body[0], scope, body[1], {}))
    if isinstance(node, A.Call) and node.func not in scope.functions and node.func in _LISTING:
        return ListFact(None, node.func in ("keys", "cards"))  # (a table's keys, a family's zones; cards)
    if isinstance(node, (A.Ternary, A.BinOp)):
        if isinstance(node, A.BinOp) and node.op != "+":
            return None
        a = list_fact(node.then if isinstance(node, A.Ternary) else node.left, scope, local_names, memo)
        b = list_fact(node.other if isinstance(node, A.Ternary) else node.right, scope, local_names, memo)
        if a is None or b is None:
            return None
        if a.size is None or b.size is None:
            size = None
        else:
            size = max(a.size, b.size) if isinstance(node, A.Ternary) else a.size + b.size
        return ListFact(size, a.flat and b.flat)
    return None


def players_name(node: A.Expr, scope: Scope, local_names) -> bool:
    """`node` is the name of the game's players (the list ctx.players, of players only)."""
    if not isinstance(node, A.Name) or node.id in local_names:
        return False
    sym = scope.symbols.get(node.id)
    return sym is not None and (sym is RUNTIME_PLAYERS or (sym.kind == "const" and sym.value is RUNTIME_PLAYERS.value))


def players_list(node: A.Expr, scope: Scope, local_names) -> bool:
    """`node` always gives a list of players (or raises): the game's players, or seat_order() (the players still in,
    round the table: tabletop.seat_order refuses a start that is not a player)."""
    if players_name(node, scope, local_names):
        return True
    return isinstance(node, A.Call) and node.func == "seat_order" and node.func not in scope.functions


def body_nodes(fd: FunctionDef) -> int:
    """How many nodes the body of `fd` has (counted once, without recursion: a chain a + b + ... is deep)."""
    n = fd.facts.get("nodes")
    if n is None:
        n, todo = 0, [fd.body]
        while todo:
            n += 1
            todo.extend(todo.pop().children())
        fd.facts["nodes"] = n
    return n
