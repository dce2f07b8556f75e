"""Generated source for the statements a stretch of steps runs most (move, draw, shuffle, roll, tally, a modifier
added or removed, a player or card variable set), so that a stretch runs them in its own code, their expressions
copied in, instead of calling their closures (which call the function of each expression in turn); and the lines of
an assignment to a local or a game variable, which the stretch's writer puts in its code (`assignment`).

Each is written as the closure of dsl/closures/statements.py (or assign.py) runs it: its expressions in the same order, the same
call of the game with the same arguments, the same errors; the function's value is the signal the closure returns
(None, or the roll's SUSPEND). Only statements whose closure notes its node (`written_from`) are written.
"""

from __future__ import annotations

from typing import Any

from ..dsl import ast as A
from ..dsl.builtins import describe
from ..dsl.closures.assign import _augmented
from ..dsl.ops import SUSPEND
from ..diagnostics import RuleError

from .writing import Unsupported


def draw_count_error(k, span) -> RuleError:
    """The error of a draw of `k` cards that is not a whole number of cards (as the closure raises it)."""
    return RuleError(f"draw needs a whole number of cards, got {describe(k)}", span)


def pvar_error(p, attr: str, span) -> RuleError:
    """The error of a player variable set on something that is not a player (as assign._assign_in_place raises it)."""
    return RuleError(f"'{attr}' is a player variable, but this is {describe(p)}", span)


def mark_error(c, attr: str, span) -> RuleError:
    """The error of a card variable set on something that is not a card (as the closure of assign.py raises it)."""
    return RuleError(f"'{attr}' is a card variable, but this is {describe(c)}", span)


def assignment(how: str, d: str, key: str, value: str, sign: int, names: tuple[str, str, str],
               whole: bool = False) -> list[str]:
    """The lines of a statement that sets a local (`d` is "_L") or a game variable ("ctx.vars") - `let`, `set`,
    `+=`, `-=` - as the closure of assign._assign_in_place does it: the old value read first, whole numbers added
    here, the rest (and every error) by assign._augmented. `key`, `value` and `names` (of the sign, the operator and
    the place) are written names; `whole`: the value is a whole number written in the rules (`n += 1`), not tested."""
    if how == "set":
        return [f"{d}[{key}] = {value}"]
    given, value = value, value if whole else "_i"
    grown = []
    if sign > 0:  # a list grown by a value or a list: guards.bounded only looks at one it could refuse or charge
        grown = ["elif type(_o) is list:",
                 f"    _w = _o + {value} if isinstance({value}, list) else _o + [{value}]",
                 "    if len(_w) >= _FEW or not _CONTAINERS.isdisjoint(map(type, _w)):",
                 f"        _w = _bounded(_w, ctx, {names[2]})",
                 f"    {d}[{key}] = _w"]
    slow = "{}[{}] = _augmented(_o, {}, {}, {}, ctx, {})".format(d, key, value, *names)
    return [f"_o = _L.get({key})" if d == "_L" else f"_o = ctx.vars[{key}]",
            *([] if whole else [f"_i = {given}"]),
            f"if type(_o) is int{'' if whole else ' and type(_i) is int'}:",
            f"    _w = _o {'+' if sign > 0 else '-'} {value}",
            "    if abs(_w) <= _MAXI:",
            f"        {d}[{key}] = _w",
            "    else:",
            f"        {slow}",
            *grown,
            "else:",
            f"    {slow}"]


class StatementNodes:
    """The statement writers of Generator: each returns the name of the statement's signal ('None' when it has none)."""

    # what the classes it is mixed with give (Writer, and Generator's expr); these come after them in Generator's order
    reads_locals: bool

    def expr(self, node: A.Expr) -> str:
        raise NotImplementedError

    def emit(self, line: str) -> None:
        raise NotImplementedError

    def const(self, value: Any) -> str:
        raise NotImplementedError

    def temp(self) -> str:
        raise NotImplementedError

    def block(self, header: str) -> Any:
        raise NotImplementedError

    def statement(self, node: A.Stmt, extra: dict) -> str:
        method = getattr(self, "_w_" + type(node).__name__, None)
        if method is None:
            raise Unsupported("a statement left to its closure")
        return method(node, extra)

    def _w_Move(self, n: A.Move, extra: dict) -> str:
        what = self.expr(n.what)
        dest = self.expr(n.dest)
        place = self.expr(n.under) if n.under is not None else self.const(n.place)  # (under N: a number)
        self.emit(f"ctx.move({what}, {dest}, {place}, {self.const(n.span)})")
        return "None"

    def _w_Shuffle(self, n: A.Shuffle, extra: dict) -> str:
        self.emit(f"ctx.shuffle({self.expr(n.zone)}, {self.const(n.span)})")
        return "None"

    def _w_Draw(self, n: A.Draw, extra: dict) -> str:
        span = self.const(n.span)
        if n.count is not None:
            k = self.expr(n.count)
            with self.block(f"if {k} is not None and (isinstance({k}, bool) or not isinstance({k}, int) or {k} < _ZERO):"):
                self.emit(f"raise {self.const(draw_count_error)}({k}, {span})")
        else:
            k = "None"
        src = self.expr(n.source)
        dest = self.expr(n.dest) if n.dest is not None else "None"
        got = self.temp()
        self.emit(f"{got} = ctx.draw({k}, {src}, {dest}, {self.const(n.place)}, {span})")
        if n.bind is not None:
            self._bind(n.bind, got)
        return "None"

    def _w_Roll(self, n: A.Roll, extra: dict) -> str:
        roller = self.expr(n.roller) if n.roller is not None else "None"
        against = self.expr(n.against) if n.against is not None else "None"
        r, out = self.temp(), self.temp()
        self.emit(f"{r} = ctx.roll({self.const(extra['spec'])}, {roller}, {against}, {self.const(n.span)})")
        with self.block(f"if {r} is {self.const(SUSPEND)}:"):
            self.emit(f"{out} = {r}")
        with self.block("else:"):
            if n.bind is not None:
                self._bind(n.bind, r)
            self.emit(f"{out} = None")
        return out

    def _w_Tally(self, n: A.Tally, extra: dict) -> str:
        key = self.expr(n.key) if n.key is not None else "None"
        value = self.expr(n.value) if n.value is not None else "_ONE"
        self.emit(f"ctx.tally({self.const(n.metric)}, {key}, {value}, {self.const(n.span)})")
        return "None"

    def _w_AddModifier(self, n: A.AddModifier, extra: dict) -> str:
        target = self.expr(n.target) if n.target is not None else "None"
        value = self.expr(n.value) if n.value is not None else "_ONE"
        until = ("next " + n.until) if n.next else n.until
        self.emit(f"ctx.add_modifier({self.const(n.modifier)}, {target}, {value}, {self.const(until)}, "
                  f"{self.const(n.span)})")
        return "None"

    def _w_RemoveModifier(self, n: A.RemoveModifier, extra: dict) -> str:
        target = self.expr(n.target) if n.target is not None else "None"
        self.emit(f"ctx.remove_modifier({self.const(n.modifier)}, {target})")
        return "None"

    def _w_Assign(self, n: A.Assign, extra: dict) -> str:
        """A player variable set (`p.coins = v`, `+=`, `-=`) as assign._assign_in_place's closures run it: the player
        worked out at the read and again at the write (its errors and work each time), whole numbers in range added
        here, everything else by assign._augmented. Other assignments are left to their closures."""
        t = n.target
        if not isinstance(t, A.Attr) or n.op not in ("=", "+=", "-="):
            raise Unsupported("an assignment left to its closure")
        attr, span = self.const(t.name), self.const(n.span)
        if extra.get("mark"):  # a card variable set (`card.x = v`): the value first, then the card, as the closure
            value = self.expr(n.value)
            c = self.expr(t.obj)
            with self.block(f"if not isinstance({c}, _Card):"):
                self.emit(f"raise {self.const(mark_error)}({c}, {attr}, {span})")
            self.emit(f"ctx.set_mark({c}, {attr}, {value})")
            return "None"
        if n.op == "=":
            value = self.expr(n.value)
            self.emit(f"ctx.pvars[{self._player(t, attr, span)}.seat][{attr}] = {value}")
            return "None"
        sign = 1 if n.op == "+=" else -1
        old, new = self.temp(), self.temp()
        who = self._player(t, attr, span)
        self.emit(f"{old} = ctx.pvars[{who}.seat][{attr}]")
        inc = self.expr(n.value)
        self.emit(f"{new} = {old} {'+' if sign > 0 else '-'} {inc} if type({old}) is int and type({inc}) is int else None")
        with self.block(f"if {new} is None or not abs({new}) <= _MAXI:"):
            self.emit(f"{new} = {self.const(_augmented)}({old}, {inc}, {self.const(sign)}, {self.const(n.op)}, ctx, {span})")
        # the player worked out again for the write, unless both it and the value only read (a name, or a field of
        # one: no work, and what the first reading gave, it gives again)
        again = who if _reads_only(t.obj) and _reads_only(n.value) else self._player(t, attr, span)
        self.emit(f"ctx.pvars[{again}.seat][{attr}] = {new}")
        return "None"

    def _player(self, t: A.Attr, attr: str, span: str) -> str:
        """The object of `t` worked out, refused unless it is a player."""
        p = self.expr(t.obj)
        with self.block(f"if type({p}) is not _Player:"):
            self.emit(f"raise {self.const(pvar_error)}({p}, {attr}, {span})")
        return p

    def _bind(self, name: str, value: str) -> None:
        """ctx.locals[name] = value, as the closure binds a statement's result."""
        self.reads_locals = True
        self.emit(f"_L[{self.const(name)}] = {value}")


def _reads_only(e: A.Expr) -> bool:
    """A value read as it is: a number, a text, a name, or a field of a name (whose getter reads, never charges)."""
    return isinstance(e, (A.Num, A.Str, A.Const, A.Name)) or isinstance(e, A.Attr) and isinstance(e.obj, A.Name)
