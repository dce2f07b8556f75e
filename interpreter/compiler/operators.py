"""Generated source for names, attributes, literals and operators (a method per kind of node, as in closures/)."""

from __future__ import annotations

import re

from ..values import CARD_FIELDS, PLAYER_FIELDS, ROLL_FIELDS, FamilyRef, Row
from ..dsl import ast as A
from ..dsl.ops import _NUMBER_TYPES, make_getattr
from ..dsl.scope import RUNTIME_PLAYER_COUNT, RUNTIME_PLAYERS

from .facts import fixed, list_fact, no_container, numeric, plain_attribute, players_list, small_whole, whole_number
from .writing import FEW, Unsupported, names

# The Python operators of the language's operators: the source gets these texts, never the ruleset's.
_ARITH = {"+": "+", "-": "-", "*": "*", "/": "/", "//": "//", "%": "%"}
_EQUALITY = {"==": "==", "!=": "!="}
_ORDERED = {"<": "<", "<=": "<=", ">": ">", ">=": ">="}
_MADE = re.compile(r"_v[0-9]+")


class OperatorNodes:
    """The node writers for literals, names, attributes, indexing, operators, comparisons and ternaries."""

    def _g_Num(self, n: A.Num) -> str:
        return self.const(n.value)

    def _g_Const(self, n: A.Const) -> str:
        return self.const(n.value)  # a name even for true/false/none: Python warns of 'None[0]' written as such

    def _g_Str(self, n: A.Str) -> str:
        if n.is_plain:
            return self.const("".join(n.parts))  # type: ignore[arg-type]
        pieces = []
        for part in n.parts:
            if isinstance(part, str):
                pieces.append(self.const(part))
                continue
            v = self.expr(part)
            t = self.temp()
            # as a value reads (text_of), before the next part runs; a whole number is its digits
            self.emit(f"{t} = {v} if type({v}) is str else str({v}) if type({v}) is int else _text_in({v}, ctx)")
            pieces.append(t)
        out = self.temp()
        self.emit(f"{out} = _join(({', '.join(pieces)},))")
        size = self.temp()
        self.emit(f"{size} = len({out})")
        with self.block(f"if {size} >= _SHORT:"):  # as guards.bounded does for a text: long texts cost budget
            span = self.const(n.span)
            with self.block(f"if {size} > _MAX_VALUES:"):
                self.emit(f"_bounded({out}, ctx, {span})")  # raises
            self.charge(f"{size} >> _COPY_SHIFT", span)
        return out

    def _g_Name(self, n: A.Name) -> str:
        name = n.id
        if name in self.locals:
            if name in self.bound:
                return self.bound[name]
            self.reads_locals = True
            out = self.temp()
            with self.block("try:"):
                self.emit(f"{out} = _L[{self.const(name)}]")
            with self.block("except KeyError:"):
                self.emit(f"raise _unset({self.const(name)}, {self.const(n.span)}) from None")
            return out
        sym = self.scope.symbols[name]
        out = self.temp()
        if sym.kind == "var":
            self.emit(f"{out} = ctx.vars[{self.const(name)}]")
        elif sym is RUNTIME_PLAYERS or (sym.kind == "const" and sym.value is RUNTIME_PLAYERS.value):
            self.emit(f"{out} = ctx.players")
        elif sym is RUNTIME_PLAYER_COUNT or (sym.kind == "const" and sym.value is RUNTIME_PLAYER_COUNT.value):
            self.emit(f"{out} = len(ctx.players)")
        elif sym.kind in ("player_zone", "sequence", "modifier", "event", "dice"):
            raise Unsupported("not a value")  # the compiler reported it; its closure raises
        else:
            return self.const(sym.value)
        return out

    def _g_Attr(self, n: A.Attr) -> str:
        """As compiler._fast_attr: a player's variable or zone and a card's attribute read inline, the rest by the
        generic getter (which also raises the errors)."""
        obj = self.expr(n.obj)
        name, sc = n.name, self.scope
        get = f"{self.const(make_getattr(name, sc))}({obj}, ctx, {self.const(n.span)})"
        key = self.const(name)
        out = self.temp()
        if name in sc.marks or name in CARD_FIELDS or name in PLAYER_FIELDS:
            self.emit(f"{out} = {get}")
        elif name in sc.player_vars:
            self.emit(f"{out} = ctx.pvars[{obj}.seat][{key}]" if obj in self.people else
                      f"{out} = ctx.pvars[{obj}.seat][{key}] if type({obj}) is _Player else {get}")
        elif name in sc.player_zones and obj in self.people:  # a player's zone: no test of what it is
            self.zone_refs.add(out)  # (nor of what it gives)
            refs = self.const({})
            with self.block("try:"):
                self.emit(f"{out} = {refs}[{obj}.seat]")
            with self.block("except KeyError:"):
                self.emit(f"{out} = {refs}[{obj}.seat] = _ZoneRef({key}, {obj}.seat)")
        elif name in sc.player_zones:
            refs = self.const({})  # zone refs are interned: one per seat, kept at hand
            with self.block(f"if type({obj}) is _Player:"):
                with self.block("try:"):
                    self.emit(f"{out} = {refs}[{obj}.seat]")
                with self.block("except KeyError:"):  # the first read for this seat
                    self.emit(f"{out} = {refs}[{obj}.seat] = _ZoneRef({key}, {obj}.seat)")
            with self.block("else:"):
                self.emit(f"{out} = {get}")
        elif name in sc.card_attrs:
            general = f"{obj}.attrs[{key}] if type({obj}) is _Card and {key} in {obj}.attrs else {get}"
            flag = self._card_flag(obj)  # a card's attribute it does not have is none (ops.make_getattr)
            self.emit(f"{out} = {general}" if flag is None else f"{out} = {obj}.attrs.get({key}) if {flag} else {general}")
        elif name in ROLL_FIELDS and name != "faces":  # a roll's field as it is ('faces' is copied)
            self.emit(f"{out} = {obj}.{name} if type({obj}) is _Roll else {get}")
        else:  # a table row's column or a record's field, read as ops.make_getattr reads any dict's
            self.emit(f"{out} = {obj}[{key}] if type({obj}) in _RECORDS and {key} in {obj} else {get}")
        return out

    def _g_Index(self, n: A.Index) -> str:
        obj = self.expr(n.obj)
        key = self.expr(n.key)
        out = self.temp()
        slow = f"_index({obj}, {key}, ctx, {self.const(n.span)})"
        known, value = fixed(n.obj, self.scope, self.locals)
        if known and type(value) is Row:  # a table: a row it has is read inline, the rest (and errors) by index()
            self.emit(f"{out} = {obj}[{key}] if {key} in {obj} else {slow}")
            return out
        if known and type(value) is FamilyRef:  # a family of zones: its member, as index() finds it
            self.emit(f"{out} = ctx.family_member({self.const(value.zone)}, {key}, {self.const(n.span)})")
            return out
        # a list with a whole number inside it, a record's field are read inline; everything else (and every
        # error) by index()
        known_key, k = fixed(n.key, self.scope, self.locals)
        if known_key and type(k) is int and k >= 0 and players_list(n.obj, self.scope, self.locals):
            self.emit(f"{out} = {obj}[{key}] if {key} < len({obj}) else {slow}")  # (players[0]: a list, surely)
            return out
        if known_key and type(k) is int and k >= 0:  # a position fixed at load: no test of its type or its sign
            self.emit(f"{out} = {obj}[{key}] if type({obj}) is list and {key} < len({obj}) else {obj}.get({key}) "
                      f"if type({obj}) is dict else {slow}")
            return out
        self.emit(f"{out} = {obj}[{key}] if type({obj}) is list and type({key}) is int and "
                  f"-len({obj}) <= {key} < len({obj}) else {obj}.get({key}) if type({obj}) is dict else {slow}")
        return out

    def test(self, node: A.Expr, otherwise: str) -> None:
        """Write `otherwise` (a jump) to run when `node` is false; 'a and b' as one test after another."""
        if isinstance(node, A.BinOp) and node.op == "and" and self._plain(node):
            self.test(node.left, otherwise)
            self.test(node.right, otherwise)
            return
        negated = isinstance(node, A.Unary) and node.op == "not" and self._plain(node)  # 'not x' false: x true
        v = self.expr(node.operand if negated else node)  # type: ignore[attr-defined]  # (a Unary when negated)
        with self.block(f"if {v}:" if negated else f"if not {v}:"):
            self.emit(otherwise)

    def _plain(self, node: A.Expr) -> bool:
        """The node is written here (not left to a failing closure), so its parts can be written one by one."""
        entry = self.made.get(id(node))
        return entry is not None and entry[0] is node and not getattr(entry[1][0], "failed", False)

    def _g_Unary(self, n: A.Unary) -> str:
        v = self.expr(n.operand)
        out = self.temp()
        if n.op == "not":
            self.emit(f"{out} = not {v}")
            return out
        with self.block(f"if isinstance({v}, bool) or not isinstance({v}, _INT_FLOAT):"):
            self.emit(f"raise _negate_error({v}, {self.const(n.span)})")
        self.emit(f"{out} = -{v}")
        return out

    def _g_BinOp(self, n: A.BinOp) -> str:
        if n.op in ("and", "or"):
            out = self.temp()
            self.assign(out, n.left)
            with self.block(f"if {out}:" if n.op == "and" else f"if not {out}:"):
                self.assign(out, n.right)
            return out
        py = _ARITH.get(n.op)
        if py is None:
            raise Unsupported(n.op)
        a = self.expr(n.left)
        b = self.expr(n.right)
        op, span = self.const(n.op), self.const(n.span)
        out, t = self.temp(), self.temp()
        if n.op != "+":  # Python would repeat a text or list ('ab' * 10**9) or format one ('%9999999d' % 1)
            unsure = [v for v, side in ((a, n.left), (b, n.right)) if not self._a_number(side)]  # (a number fixed
            # at load passes the test)
            if unsure:
                with self.block(f"if {' or '.join(f'type({v}) not in _NUMBERS' for v in unsure)}:"):
                    self.emit(f"raise _compute_error({a}, {op}, {b}, {span})")
        if n.op == "+" and all(list_fact(side, self.scope, self.locals, self.known) for side in (n.left, n.right)):
            self.emit(f"{out} = {a} + {b}")  # two lists: nothing to catch
        else:
            with self.block("try:"):
                self.emit(f"{out} = {a} {py} {b}")
            with self.block("except ZeroDivisionError:"):
                self.emit(f"raise _RuleError(_ZERO_DIV, {span}) from None")
            with self.block("except TypeError:"):
                self.emit(f"raise _compute_error({a}, {op}, {b}, {span}) from None")
        # a runaway number, or a text or list that may be too long, goes through the guard (a short flat list
        # would pass it untouched: guards.bounded charges nothing under _SHORT values, and nested() finds no list
        # and at most 10 texts, which cannot pass MAX_CHARS); what the operands are known to be leaves out the
        # tests that cannot fail (facts.py)
        guard = self._bound_test(n, out, t)
        if guard is not None:
            with self.block(f"if {guard}:"):
                self.emit(f"{out} = _bounded({out}, ctx, {span})")
        return out

    def _a_number(self, node: A.Expr) -> bool:
        """`node` is a number fixed at load, or always a whole number (of a type the generated test
        `type(x) not in _NUMBERS` lets through)."""
        known, value = fixed(node, self.scope, self.locals)
        return (known and type(value) in _NUMBER_TYPES) or whole_number(node, self.scope, self.locals)

    def _bound_test(self, n: A.BinOp, out: str, t: str) -> str | None:
        """The test that sends the result `out` of `n` to guards.bounded, or None when it can never need it."""
        if n.op in ("+", "-") and small_whole(n.left, self.scope, self.locals) \
                and small_whole(n.right, self.scope, self.locals):  # (`player_count - 1`, `count(x) + 1`)
            return None
        if n.op == "+":
            lists = [list_fact(side, self.scope, self.locals, self.known) for side in (n.left, n.right)]
            if lists[0] is not None and lists[1] is not None:  # a list, whatever else
                size = None if lists[0].size is None or lists[1].size is None else lists[0].size + lists[1].size
                flat = lists[0].flat and lists[1].flat
                if flat and size is not None and size < FEW:
                    return None
                if flat:
                    return f"len({out}) >= _FEW"
                return f"len({out}) >= _FEW or not _CONTAINERS.isdisjoint(map(type, {out}))"
        if n.op != "+" or numeric(n.left, self.scope, self.known) or numeric(n.right, self.scope, self.known):
            # a number: the other operators refuse anything else, and a text, list or record added to a number,
            # true/false or none is an error (a finite float passes the guard unchanged, infinity and NaN do not)
            return f"not abs({out}) <= _MAXI"
        self.emit(f"{t} = type({out})")
        return (f"({t} is not float and {t} is not int or not abs({out}) <= _MAXI) and not "
                f"({t} is list and len({out}) < _FEW and _CONTAINERS.isdisjoint(map(type, {out})))")

    def _in_list(self, out: str, item: str, container: str, span: str) -> None:
        """`out = item in container` for a list, as ops.member looks in one; a player in a list of two or more by seat
        among its items' seats, in C (Python's `in` calls Player.__eq__ on each other player), or as any list when an
        item has no seat."""
        with self.block(f"if len({container}) <= _ONE:"):  # (no other player to compare with: nothing gained)
            self._looked_in(out, item, container, span)
        with self.block("else:"):
            self.scanned(f"len({container})", span)  # a scan costs budget by its length
            with self.block(f"if type({item}) is _Player:"):
                with self.block("try:"):
                    self.emit(f"{out} = {item}.seat in map(_SEAT, {container})")
                with self.block("except AttributeError:"):
                    self._looked_in(out, item, container, span)
            with self.block("else:"):
                self._looked_in(out, item, container, span)

    def _looked_in(self, out: str, item: str, container: str, span: str) -> None:
        with self.block("try:"):
            self.emit(f"{out} = {item} in {container}")
        with self.block("except TypeError:"):
            self.emit(f"raise _member_error({item}, {container}, {span}) from None")

    def _g_Compare(self, n: A.Compare) -> str:
        out = self.temp()
        if n.op in ("in", "not in"):
            container = self.expr(n.right)  # the container runs first, as in the closure
            item = self.expr(n.left)
            span = self.const(n.span)
            # a list (the commonest) is looked in here; the rest (a zone, a record, a text, an error) by ops.member
            if list_fact(n.right, self.scope, self.locals) is not None:  # always a list: no test
                self._in_list(out, item, container, span)
            else:
                with self.block(f"if type({container}) is list:"):
                    self._in_list(out, item, container, span)
                with self.block("else:"):
                    self.emit(f"{out} = _member(ctx, {item}, {container}, {span})")
            if n.op == "not in":
                self.emit(f"{out} = not {out}")
            return out
        a = self.expr(n.left)
        b = self.expr(n.right)
        if n.op in _EQUALITY:
            if _is_none(n.left) or _is_none(n.right):
                # no value of the language equals none but none itself (a player's or a zone family's __eq__
                # says False): 'is' gives the same answer without calling them
                self.emit(f"{out} = {a} {'is' if n.op == '==' else 'is not'} {b}")
                return out
            if not self._no_container(n):
                with self.block(f"if {self._unless_card(n)}type({a}) in _LIST_DICT:"):  # compared value by value: charged
                    self.emit(f"_compared(ctx, {a}, {b}, {self.const(n.span)})")
            if a in self.people or b in self.people:  # a player (a loop's item over the players)
                p, q = (a, b) if a in self.people else (b, a)
                same = f"type({q}) is _Player and {p}.seat == {q}.seat"
                self.emit(f"{out} = {same}" if n.op == "==" else f"{out} = not ({same})")
                return out
            if "player" in (self.type_of(n.left), self.type_of(n.right)):
                # players, as Player.__eq__ compares them without the call (the other side first when only it is
                # said to be a player: a value of another kind is never equal to one); the types only choose this
                p, q = (a, b) if self.type_of(n.left) == "player" else (b, a)
                same = f"type({q}) is _Player and {p}.seat == {q}.seat"
                self.emit(f"{out} = ({same if n.op == '==' else f'not ({same})'}) if type({p}) is _Player else "
                          f"{a} {_EQUALITY[n.op]} {b}")
                return out
            self.emit(f"{out} = {a} {_EQUALITY[n.op]} {b}")
            return out
        py = _ORDERED.get(n.op)
        if py is None:
            raise Unsupported(n.op)
        if not self._no_container(n):
            with self.block(f"if {self._unless_card(n)}type({a}) is list:"):
                self.emit(f"_compared(ctx, {a}, {b}, {self.const(n.span)})")
        if self._a_number(n.left) and self._a_number(n.right):  # two numbers: nothing to catch
            self.emit(f"{out} = {a} {py} {b}")
            return out
        with self.block("try:"):
            self.emit(f"{out} = {a} {py} {b}")
        with self.block("except TypeError:"):
            self.emit(f"raise _compare_error({a}, {self.const(n.op)}, {b}, {self.const(n.span)}) from None")
        return out

    def _no_container(self, n: A.Compare) -> bool:
        """One side of the comparison is never a list or a record: guards.compared would charge nothing."""
        return no_container(n.left, self.scope, self.locals) or no_container(n.right, self.scope, self.locals) or \
            any(isinstance(side, A.Name) and self.bound.get(side.id) in self.people for side in (n.left, n.right))

    def _unless_card(self, n: A.Compare) -> str:
        """The start of the test that sends a comparison to guards.compared: `not FLAG and ` when one side reads an
        attribute of a loop's item that is a list or record on no card of the ruleset, and the loop's flag says its
        items are cards (guards.compared charges nothing when one side is neither); else nothing."""
        for side in (n.left, n.right):
            if isinstance(side, A.Attr) and isinstance(side.obj, A.Name) and plain_attribute(side.name, self.scope):
                flag = self.cards.get(self.bound.get(side.obj.id, ""))
                if flag is not None:
                    self.flags_read.add(flag)
                    return f"not {flag} and "
        return ""

    def _g_IsClass(self, n: A.IsClass) -> str:
        v = self.expr(n.obj)
        out = self.temp()
        cls = self.const(n.cls)
        general = f"isinstance({v}, _Card) and {cls} in {v}.classes"
        flag = self._card_flag(v)
        self.emit(f"{out} = {general}" if flag is None else f"{out} = {cls} in {v}.classes if {flag} else {general}")
        if n.negate:
            self.emit(f"{out} = not {out}")
        return out

    def _card_flag(self, v: str) -> str | None:
        """The flag that is true when the local `v` holds a card (see Writer.cards), noted as read; None if none."""
        flag = self.cards.get(v)
        if flag is not None:
            self.flags_read.add(flag)
        return flag

    def _g_Ternary(self, n: A.Ternary) -> str:
        out = self.temp()
        cond = self.expr(n.cond)  # the condition runs first
        if cond in self.ns and type(self.ns[cond]) in _FIXED_TRUTH:  # fixed at load (an option, a literal): only the
            return self.expr(n.then if self.ns[cond] else n.other)  # branch it takes is written, as it alone runs
        with self.block(f"if {cond}:"):
            self.assign(out, n.then)
        with self.block("else:"):
            self.assign(out, n.other)
        return out

    def assign(self, out: str, node: A.Expr) -> None:
        """`out = ` the value of `node`: the line that gives it to a local of its own, last of its lines and at this
        depth, gives it to `out` instead when no other line of them names that local and no fact is kept of it."""
        start, temps = len(self.lines), self.temps
        v = self.expr(node)
        head = "    " * self.depth + v + " = "
        if _MADE.fullmatch(v) and int(v[2:]) > temps and len(self.lines) > start and \
                self.lines[-1].startswith(head) and v not in self.kept and v not in self.zone_refs and \
                v not in self.people and v not in self.zone_lists and v not in self.cards and \
                all(v != got[0] for got in self.memo.values()):
            if not any(names(line, v) for line in self.lines[start:-1]) and not names(self.lines[-1][len(head):], v):
                self.lines[-1] = "    " * self.depth + out + " = " + self.lines[-1][len(head):]
                return
        self.emit(f"{out} = {v}")

    def _g_Range(self, n: A.Range) -> str:
        a = self.expr(n.low)
        b = self.expr(n.high)
        span = self.const(n.span)
        with self.block(f"if not isinstance({a}, int) or not isinstance({b}, int) or isinstance({a}, bool) "
                        f"or isinstance({b}, bool) or {b} - {a} >= _MAXR:"):
            self.emit(f"raise _range_error({a}, {b}, {span})")
        out = self.temp()
        self.emit(f"{out} = list(range({a}, {b} + _ONE))")
        return out


_FIXED_TRUTH = (bool, int, float, str, type(None))  # values whose truth is their own (a constant's is fixed)


def _is_none(node: A.Expr) -> bool:
    return isinstance(node, A.Const) and node.value is None
