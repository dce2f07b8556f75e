"""Generated source for calls (built-ins, ruleset functions written inline or called), lists and comprehensions."""

from __future__ import annotations

from typing import Callable

from ..dsl import ast as A
from ..dsl.builtins import REGISTRY
from ..dsl.ops import rank, RANKINGS
from ..dsl.checking import binds_items
from ..dsl.scope import FunctionDef
from ..dsl.guards import _CONTAINERS, _SMALL, CALL_COST, scalar
from ..dsl.tabletop import with_fixed
from ..values import FamilyRef

from .facts import body_nodes as _body_nodes, fixed as fixed_value, list_fact, no_container, number_attribute, numeric, players_list
from .writing import _CHECK, _UNKNOWN, FEW, MAX_NODES, Unsupported, by_flag

MAX_INLINE = 2  # ruleset functions written inline in their caller, at most this deep (deeper ones are called)
_COUNT = REGISTRY["count"].fn
_SIZES = (_COUNT, REGISTRY["empty"].fn)
_OWNER = REGISTRY["owner"].fn
_SUM = REGISTRY["sum"].fn
_RECORD = REGISTRY["record"].fn
_LOUD = _CONTAINERS | {str}  # a record field of these kinds is what guards.nested looks at
_TALLIES = {_COUNT: "count", REGISTRY["any"].fn: "any", REGISTRY["all"].fn: "all"}  # read a list only to tally it
_FLATTEN = REGISTRY["flatten"].fn
_MODIFIER = REGISTRY["modifier"].fn
_COUNTED = (A.ListLit, A.Ternary, A.BinOp, A.Call)
_INLINE: dict = {}  # built-ins of one argument written inline, by a method of CallNodes (filled in below it)


def _same(n: A.Comprehension) -> bool:
    """[c for c in ... if ...]: the element is the item itself."""
    return isinstance(n.element, A.Name) and n.element.id == n.var


class CallNodes:
    """The node writers for calls, list literals and comprehensions."""

    def _g_Call(self, n: A.Call) -> str:
        fd = self.scope.functions.get(n.func)
        if fd is not None:
            return self._user_call(n, fd)
        if n.func in RANKINGS and (n.kwargs or n.func != "sorted" or binds_items(n)):
            return self._ranking(n)
        b = REGISTRY[n.func]
        if b.fn in _TALLIES and len(n.args) == 1 and not n.kwargs and isinstance(n.args[0], A.Comprehension) and \
                self._plain(n.args[0]) and (_same(n.args[0]) or scalar(n.args[0].element, REGISTRY, self.scope.functions)):
            return self._tally(n, n.args[0], _TALLIES[b.fn])
        if b.fn is _COUNT and len(n.args) == 1 and not n.kwargs and isinstance(n.args[0], _COUNTED) and \
                list_fact(n.args[0], self.scope, self.locals) is not None:  # no list made (Generator.counted)
            return self.counted(n.args[0])
        names = [kw.name for kw in n.kwargs]
        if len(set(names)) != len(names):
            raise Unsupported("a named argument given twice")  # the closure keeps the last one: leave it that way
        args = [self.expr(a) for a in n.args]
        kwargs = [(self.const(kw.name), self.expr(kw.value)) for kw in n.kwargs]
        impl, span = self.const(b.fn), self.const(n.span)
        out = self.temp()
        if kwargs:
            fixed = [fixed_value(kw.value, self.scope, self.locals) for kw in n.kwargs]
            special = with_fixed(n.func, {kw.name: v for kw, (_, v) in zip(n.kwargs, fixed)}) \
                if all(known for known, _ in fixed) else None
            step = getattr(special, "step", None)
            if step is not None and len(args) == 1:  # the next seat, as tabletop._next_cw/_next_ccw, without the call
                p = args[0]  # (an if: steps counted only before the fallback's call, positions; seat - 1: -1 is the last)
                seat = f"{p}.seat - _ONE" if step == -1 else f"({p}.seat + {self.const(step)}) % len(ctx.players)"
                with self.block(f"if type({p}) is _Player and not ctx.modifiers:"):
                    self.emit(f"{out} = ctx.players[{seat}]")
                with self.block("else:"):
                    self.emit(f"{out} = {self.const(special)}(ctx, {span}, {p})")
                return out
            if special is not None:  # named arguments fixed at load, worked out once (tabletop.with_fixed)
                self.emit(f"{out} = {self.const(special)}(ctx, {', '.join([span, *args])})")
                return out
            if b.fn is _RECORD and len(kwargs) < FEW:
                return self._record(n, kwargs, out, span)
            named = "**{" + ", ".join(f"{k}: {v}" for k, v in kwargs) + "}"
            self.emit(f"{out} = {impl}(ctx, {', '.join([span, *args, named])})")
        elif b.fn in _SIZES and len(args) == 1:  # count() and empty() of a list or a zone, read inline
            a = args[0]
            if list_fact(n.args[0], self.scope, self.locals) is not None:  # always a list
                self.emit(f"{out} = len({a})" if b.fn is _COUNT else f"{out} = not {a}")
                return out
            # a zone's cards read from the game's table (Writer.zone_list); 'not' of a list: true when empty
            known, value = fixed_value(n.args[0], self.scope, self.locals)
            cards = self.temp()
            self.listed(a, cards, "None", value if known else _UNKNOWN)
            size = f"len({cards})" if b.fn is _COUNT else f"not {cards}"
            self.emit(f"{out} = {size}" if a in self.zone_refs else  # (a zone's cards: never None)
                      f"{out} = {size} if {cards} is not None else {impl}(ctx, {span}, {a})")
        elif b.fn is _SUM and len(args) == 1 and list_fact(n.args[0], self.scope, self.locals) is not None:
            # the sum of a list, as builtins._sum: its scan charged by its length, numbers only, within the limit
            a = args[0]
            self.scanned(f"len({a})", span)
            self.emit(f"{out} = _total({a}) if _PLAIN.issuperset(map(type, {a})) else _total(_numbers(ctx, {a}, {span}))")
            with self.block(f"if not abs({out}) <= _MAXI:"):
                self.emit(f"{out} = _number({out}, {span})")
        elif b.fn in _INLINE and len(args) == 1 and (b.fn is not _FLATTEN or list_fact(n.args[0], self.scope, self.locals)):
            _INLINE[b.fn](self, n, args[0], out, impl, span)
        elif b.fn is _MODIFIER:  # as builtins._modifier, one call fewer (none while no modifier is on)
            self.emit(f"{out} = _ZERO if not ctx.modifiers else ctx.modifier_total({', '.join(args)})")
        elif b.fn is _OWNER and len(args) == 1:  # the owner of a zone, read inline
            a = args[0]
            self.emit(f"{out} = (ctx.players[{a}.key] if {a}.zone in ctx._player_zones else None) if type({a}) is _ZoneRef "
                      f"else {impl}(ctx, {span}, {a})")  # as Board.zone_owner, without the call
        else:
            self.emit(f"{out} = {impl}(ctx, {', '.join([span, *args])})")
        return out

    def _keys(self, n: A.Call, a: str, out: str, impl: str, span: str) -> None:
        """keys() of a table as builtins._keys, without the call: its scan charged when long."""
        known, value = fixed_value(n.args[0], self.scope, self.locals)
        if known and isinstance(value, dict):
            if len(value) >= 16:
                self.emit(f"_scanned(ctx, len({a}), {span})")
            self.emit(f"{out} = list({a})")
            return
        if known and type(value) is FamilyRef:  # a family's zones: the game's list of a fixed family read at once
            name, kept = self.const(value.zone), self.temp()
            self.emit(f"{kept} = ctx._families.get({name})")
            self.emit(f"{out} = list({kept}) if {kept} is not None else list(ctx.family_zones({name}))")
            self.zone_lists.add(out)  # (zone refs only: a loop over it knows each item is one)
            return
        with self.block(f"if type({a}) is dict:"):
            self.scanned(f"len({a})", span)
            self.emit(f"{out} = list({a})")
        with self.block("else:"):
            self.emit(f"{out} = {impl}(ctx, {span}, {a})")

    def _cards(self, n: A.Call, a: str, out: str, impl: str, span: str) -> None:
        """cards() of a zone as builtins._cards, without the call: a copy of its cards, its scan charged when long."""
        cards = self.temp()
        with self.block(f"if type({a}) is _ZoneRef:"):
            self.zone_list(a, cards)
            self.scanned(f"len({cards})", span)
            self.emit(f"{out} = {cards}[:]")
        with self.block("else:"):
            self.emit(f"{out} = {impl}(ctx, {span}, {a})")

    def _flatten(self, n: A.Call, a: str, out: str, impl: str, span: str) -> None:
        """flatten() of a list as builtins._flatten, without its calls: its scan charged when long, each zone's cards
        (no copy) or each list added in turn, stopping past MAX_VALUES, and the whole through the guard. A list of
        zone refs only (`zone_lists`) gives cards, neither lists nor records: no test of each item, nor of the whole."""
        item, refs = self.temp(), a in self.zone_lists
        self.scanned(f"len({a})", span)
        self.emit(f"{out} = []")
        with self.block(f"for {item} in {a}:"):
            with self.block("if True:" if refs else f"if type({item}) is _ZoneRef:"):
                with self.block("try:"):
                    self.emit(f"{out}.extend(ctx.zones[{item}])")
                with self.block("except KeyError:"):
                    self.emit(f"{out}.extend(ctx.zone_cards({item}))")
            if not refs:
                with self.block("else:"):
                    self.emit(f"{out}.extend(_as_list(ctx, {item}, {span}))")
            with self.block(f"if len({out}) > _MAX_VALUES:"):
                self.emit("break")
        with self.block(f"if len({out}) >= _FEW{'' if refs else f' or not _CONTAINERS.isdisjoint(map(type, {out}))'}:"):
            self.emit(f"{out} = _bounded({out}, ctx, {span})")

    def _record(self, n: A.Call, kwargs: list, out: str, span: str) -> str:
        """record(NAME: value, ...) of fewer than 11 fields, built here; its check (guards.record_scanned) called where
        it may find something: a list, record or text field but [], unless short flat lists under _SHORT values."""
        self.emit(f"{out} = {{{', '.join(f'{k}: {v}' for k, v in kwargs)}}}")
        loud = [v for kw, (_, v) in zip(n.kwargs, kwargs) if not (isinstance(kw.value, A.ListLit) and not kw.value.items)
                and not numeric(kw.value, self.scope)]
        if loud:  # (any other list, record or text adds _SHORT: record_scanned, from _SHORT values, works it out)
            kinds, size, small = self.const(_LOUD), self.temp(), self.const(_SMALL)
            self.emit(f"{size} = {self.const(len(kwargs))}")
            for v in loud:
                with self.block(f"if type({v}) in {kinds}:"):
                    self.emit(f"{size} += len({v}) if type({v}) is list and len({v}) <= {small} and "
                              f"{kinds}.isdisjoint(map(type, {v})) else _SHORT")
            with self.block(f"if {size} >= _SHORT:"):
                self.emit(f"_record_scanned(ctx, {out}, {span})")
        return out

    def _user_call(self, n: A.Call, fd: FunctionDef) -> str:
        """As compiler._user_call: the call charged first, the arguments in order, then the body (its own function)."""
        if n.kwargs or len(n.args) != len(fd.params) or fd.fn is None or getattr(fd.fn, "failed", False):
            raise Unsupported("a call the compiler refused")
        cost = 1 if len(fd.params) in (1, 2) else CALL_COST  # what the closures charge, arity by arity
        self.charge(self.const(cost), self.const(n.span))
        args = [self.expr(a) for a in n.args]
        if self.looping:  # (an argument that may change from pass to pass: so does the parameter written inline)
            self.varying.update(v for v, a in zip(args, n.args) if not self.same_each_pass(a))
        inline = self._inline(fd, args)
        if inline is not None:
            return inline
        out = self.temp()
        self.emit(f"{out} = {self.const(self.function_of(fd))}({', '.join(['ctx', *args])})")
        return out

    def _inline(self, fd: FunctionDef, args: list[str], how: Callable | None = None) -> str | None:
        """The body of a ruleset function written here, its parameters bound to the arguments' locals, when it
        needs nothing from ctx.locals (no closure falls back inside it): what its generated function would run,
        without the call. Two levels deep at most; None leaves the call as it is."""
        if self.inlining >= MAX_INLINE or fd.name in self.inlined_names:
            return None
        if self.nodes + _body_nodes(fd) > MAX_NODES:  # it cannot fit: trying (a recompile, up to MAX_NODES nodes
            return None  # written) cost as much each time, for every call of a function with a large body
        inner = self.scope.with_locals(fd.params)
        try:
            sub = type(self)(inner, self.recompile(fd.body, inner), self.recompile)
        except Exception:  # noqa: BLE001 - the call stays a call
            return None
        sub.ns, sub.temps, sub.nodes, sub.depth = self.ns, self.temps, self.nodes, self.depth
        sub.bound = dict(zip(fd.params, args))
        sub.cards, sub.flags_read, sub.folder, sub.looping = self.cards, self.flags_read, self.folder, self.looping
        sub.people, sub.zone_refs, sub.varying, sub.kept = self.people, self.zone_refs, self.varying, self.kept
        sub.zone_lists = self.zone_lists
        sub.inlining = self.inlining + 1
        sub.inlined_names = self.inlined_names | {fd.name}
        kept = len(self.kept)
        try:
            result = (how or type(sub).expr)(sub, fd.body)
        except Unsupported:
            del self.kept[kept:]
            return None
        if sub.fallbacks or sub.reads_locals:
            del self.kept[kept:]  # (the parts it kept are not written: their locals' numbers are given again)
            return None  # the function would bind its parameters in ctx.locals for those: leave it a call
        self.lines.extend(sub.lines)
        self.temps, self.nodes = sub.temps, sub.nodes
        self.charged += sub.charged
        return result

    def _ranking(self, n: A.Call) -> str:
        """As closures/lists.py's ListsMixin._ranking: the items, then each item's key with the item's name bound (a Python
        local, also written to ctx.locals when a closure inside reads it there), then the order of the keys."""
        binding = n.args[0]
        got = self.expr(binding.right)
        span = self.const(binding.right.span)
        items, keys, item = self.temp(), self.temp(), self.temp()
        self.listed(got, items, f"_as_list(ctx, {got}, {span})")
        self.emit(f"{items} = list({items})")
        self.charge(f"len({items})", span)
        self.emit(f"{keys} = []")
        by = next(kw.value for kw in n.kwargs if kw.name == "by")
        self._loop_over(binding.left.id, items, item, lambda: self.emit(f"{keys}.append({self.expr(by)})"), zone=got)
        desc = next((kw.value for kw in n.kwargs if kw.name == "descending"), None)
        flag = self.expr(desc) if desc is not None else self.const(False)
        out = self.temp()
        self.emit(f"{out} = {self.const(rank)}({self.const(n.func)}, {items}, {keys}, {flag}, {self.const(n.span)}, ctx)")
        return out

    def _loop_over(self, var: str, items: str, item: str, write_body: Callable, zone: str | None = None,
                   set_flag: str | None = None) -> None:
        """Write `for item in items:` with the ruleset's name `var` bound to the item while `write_body()` writes the
        body; the name is also put in ctx.locals (and the old value back after) when a closure inside reads it.

        `zone` is the value the items were read from: when it is a zone, every item is a card, which the body may
        rely on (a flag set before the loop says so, written only when the body reads it; `set_flag` when set already)."""
        saved_bound, saved_locals = dict(self.bound), set(self.locals)
        self.bound[var] = item
        self.varying.add(item)
        kept = len(self.kept)
        self.locals.add(var)
        fallbacks = self.fallbacks
        flag = set_flag or (self.temp() if zone is not None else None)
        if flag is not None:
            self.cards[item] = flag
        body: list[str] = []
        self.looping += 1
        try:
            with self.apart(body):
                write_body()
        finally:
            self.bound, self.locals = saved_bound, saved_locals
            self.looping -= 1
            self.cards.pop(item, None)
        self.zone_flag = flag if flag in self.flags_read else None
        if not self.looping and len(self.kept) > kept:  # the outermost loop: its parts kept, none worked out yet
            self.emit(" = ".join(self.kept[kept:]) + " = _MISSING")
            del self.kept[kept:]
        if flag in self.flags_read and not set_flag:
            self.emit(f"{flag} = type({zone}) is _ZoneRef")  # its items are cards
        if any(line.lstrip().startswith("for ") for line in body):  # a loop inside: the work looked at each pass
            body.insert(0, _CHECK)
        if self.fallbacks == fallbacks:
            both = by_flag(body, flag) if flag in self.flags_read else None
            if both is None:
                with self.block(f"for {item} in {items}:"):
                    self.splice(body)
            else:  # a zone's cards, or any other list: the body written for each
                for header, lines in ((f"if {flag}:", both[0]), ("else:", both[1])):
                    with self.block(header), self.block(f"for {item} in {items}:"):
                        self.splice(lines)
            if not self.looping:  # (one inside a loop is looked at with each pass of the loop around it)
                self.check_budget()
            return
        self.reads_locals = True
        key, saved = self.const(var), self.temp()
        self.emit(f"{saved} = _L.get({key}, _MISSING)")
        with self.block("try:"):
            with self.block(f"for {item} in {items}:"):
                self.emit(f"_L[{key}] = {item}")
                self.splice(body)
        with self.block("finally:"):
            with self.block(f"if {saved} is _MISSING:"):
                self.emit(f"_L.pop({key}, None)")
            with self.block("else:"):
                self.emit(f"_L[{key}] = {saved}")
        if not self.looping:
            self.check_budget()

    def _g_ListLit(self, n: A.ListLit) -> str:
        items = [self.expr(i) for i in n.items]
        out = self.temp()
        self.emit(f"{out} = [{', '.join(items)}]")
        # whatever the types say; a few values none of which is a list or a record pass it untouched (under 11
        # values nested() counts no texts, see OperatorNodes._bound_test)
        if not all(scalar(i, REGISTRY, self.scope.functions) for i in n.items) and not (
                len(n.items) < FEW and all(no_container(i, self.scope, self.locals) for i in n.items)):
            self.nested(out, self.const(n.span), short=len(n.items) < FEW)
        return out

    def _g_Comprehension(self, n: A.Comprehension) -> str:
        """As closures/lists.py's ListsMixin._e_Comprehension. The variable is a Python local; it is also written to ctx.locals (and
        the old value put back after) only when a closure inside the loop may read it there."""
        refs: list = []  # whether the element written is a zone ref (a player's zone of a player, a family's zone)
        out, _ = self._loop_of(n, "[]", lambda out, v: (self.emit(f"{out}.append({v})"), refs.append(v in self.zone_refs)))
        if refs and all(refs):  # zone refs only: guards.nested finds nothing in it, and flatten() of it is cards
            self.zone_lists.add(out)
        elif not _same(n) and not scalar(n.element, REGISTRY, self.scope.functions):  # as the closure: whatever the types say
            e, flag = n.element, self.zone_flag
            if flag is not None and isinstance(e, A.Attr) and isinstance(e.obj, A.Name) and e.obj.id == n.var and \
                    number_attribute(e.name, self.scope):
                with self.block(f"if not {flag}:"):  # a zone's cards' numbers: nested() would find nothing
                    self.nested(out, self.const(n.iterable.span))
            else:
                self.nested(out, self.const(n.iterable.span))
        return out

    def _loop_of(self, n: A.Comprehension, start: str, each: Callable[[str, str], None]) -> tuple[str, str]:
        """The loop of a comprehension: `out` set to `start`, then `each(out, value)` writes what is done with each
        element's value; (out, the items' local)."""
        got = self.expr(n.iterable)
        span = self.const(n.iterable.span)
        items, out, item, flag = self.temp(), self.temp(), self.temp(), None
        # a zone's own card list is read in place (expressions never move cards); a list is its own list
        known, value = fixed_value(n.iterable, self.scope, self.locals)
        if list_fact(n.iterable, self.scope, self.locals) is not None:  # always a list
            items = got
        else:
            at = len(self.lines)
            self.listed(got, items, f"_as_list(ctx, {got}, {span})", value if known else _UNKNOWN)
            if self.looping and got in self.kept:  # the same in every pass of the loops around: so is its list
                flag, at = self.kept_list(at, got, items)
        self.charge(f"len({items})", span)
        self.emit(f"{out} = {start}")

        def body() -> None:
            if n.condition is not None:
                self.test(n.condition, "continue")
            each(out, item if _same(n) else self.expr(n.element))

        if players_list(n.iterable, self.scope, self.locals):
            self.people.add(item)  # its items are players (a Python local of its own: never anything else)
        elif items in self.zone_lists:
            self.zone_refs.add(item)  # its items are zone refs (a family's zones): no test of what each is
        self._loop_over(n.var, items, item, body, zone=got, set_flag=flag)
        if flag and flag not in self.flags_read:
            del self.lines[at]  # (set for nothing)
        return out, items

    def _tally(self, call: A.Call, n: A.Comprehension, kind: str) -> str:
        """count(), any() or all() of a comprehension, without making its list: every element is still worked out in
        order and the work charged as for the list (any() and all() charge scanning it, by its length, after)."""
        self.nodes += 1  # the comprehension, written here
        if kind == "count":
            return self._loop_of(n, "_ZERO", lambda out, value: self.emit(f"{out} += _ONE"))[0]
        size = self.temp() if n.condition is not None else None
        if size is not None:
            self.emit(f"{size} = _ZERO")

        def each(out: str, value: str) -> None:
            with self.block(f"if {value}:" if kind == "any" else f"if not {value}:"):
                self.emit(f"{out} = {kind == 'any'}")
            if size is not None:
                self.emit(f"{size} += _ONE")

        out, items = self._loop_of(n, str(kind != "any"), each)
        length = size if size is not None else f"len({items})"
        self.scanned(length, self.const(call.span))
        return out


_INLINE.update({REGISTRY["keys"].fn: CallNodes._keys, REGISTRY["cards"].fn: CallNodes._cards, _FLATTEN: CallNodes._flatten})
