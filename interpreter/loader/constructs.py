"""Mechanics said in one step: `auction` and `respond` (a response window).

The loader expands each into plain steps (let, loops, decisions, sealed choices) that it
builds here, with the author's expressions put in place as parsed (so their mistakes are
reported where they were written). The expansion is what runs: the interpreter, the
generated code, saves, clones, logs and replays see only steps they already know. The
model keeps ONE step (M.ConstructStep) for charts, checks, the book and coverage: every
generated step carries the construct's path, so a visit or a decision inside it counts
for that one node. The steps the author wrote inside it (`on_drop`, `on_end`, `do`) keep
their own paths and are drawn as steps of their own.

Bookkeeping names are hidden locals `__<kind><line>_<col>_<what>`, unique per construct.
"""

from __future__ import annotations

import copy
import re
from dataclasses import fields, is_dataclass, replace
from typing import Any, Optional

from ..diagnostics import DiagnosticError, Span, did_you_mean
from ..dsl import ast as A
from ..dsl.compiler import Compiler
from ..dsl.statements import StatementCompiler
from ..dsl.parser import parse_expression, parse_statements
from ..model import ruleset as M
from .dsl_text import split_statements
from .yaml_source import YMap, YNode, YScalar, YSeq

AUCTION_FORMS = ("open", "once_around", "sealed")
AUCTION_KEYS = ("form", "bidder", "from", "dir", "may_bid", "min_bid", "min_raise", "limit", "pass_is_final", "price",
                "ties", "offer", "offer_kind", "amount", "prompt", "say_excluded", "say_short", "as", "on_drop", "on_end")
RESPOND_KEYS = ("from", "dir", "each", "may", "choose", "responds", "until", "as", "do")
TIES = ("first_in_order", "random", "nobody")


RESULT_FIELDS = {"winner", "price", "dropped", "player", "bid", "tied"}  # an auction's result and its dropped records
_RECORD_CALL = re.compile(r"\brecord\(([^()]*)")
_FIELD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*:")


def record_fields(root: YNode) -> set[str]:
    """The field names records of this ruleset may have: those of auction results and every record(NAME: ...)."""
    out = set()
    todo = [root]
    while todo:
        n = todo.pop()
        if isinstance(n, YMap):
            if "auction" in n.entries:
                out |= RESULT_FIELDS
            todo.extend(n.entries.values())
        elif isinstance(n, YSeq):
            todo.extend(n.items)
        elif isinstance(n, YScalar) and isinstance(n.value, str) and "record(" in n.value:
            for args in _RECORD_CALL.findall(n.value):
                out |= set(_FIELD.findall(args))
    return out


def mentions(root: YNode, words: tuple) -> bool:
    """Whether any text of the ruleset contains one of the words (a conservative test of use)."""
    todo = [root]
    while todo:
        n = todo.pop()
        if isinstance(n, YMap):
            todo.extend(n.entries.values())
        elif isinstance(n, YSeq):
            todo.extend(n.items)
        elif isinstance(n, YScalar) and isinstance(n.value, str) and any(w in n.value for w in words):
            return True
    return False


def _plain(node, default=None):
    return node.plain() if node is not None else default


def _steps_of(node) -> list:
    if node is None:
        return []
    return list(node.items) if isinstance(node, YSeq) else [node]


def hidden(kind: str, node: YNode, what: str) -> str:
    return f"__{kind}{node.span.line}_{node.span.col}_{what}"


def names(form: str, node: YMap) -> set[str]:
    """The locals a construct binds (for the sequence's scope), the hidden ones included."""
    spec = node.get(form)
    if not isinstance(spec, YMap):
        return set()
    if form == "auction":
        out = {str(_plain(spec.get("bidder"), "bidder")), str(_plain(spec.get("as"), "auction")), "standing",
               "excluded"}
        out |= {hidden("a", node, w) for w in ("passes", "out", "said", "stand", "order", "bid", "bids", "top",
                                                "tied", "sec", "elig", "dropped", "amt")}
        if spec.get("form") is not None and spec.get("form").plain() == "sealed":
            out.add("bid")  # what a sealed bid is worth is worked out with the bid bound as 'bid'

    else:
        out = {str(_plain(spec.get("each"), "q")), str(_plain(spec.get("as"), "answer"))}
        out |= {hidden("r", node, w) for w in ("order", "any", "got", "who")}
    return out


def part_nodes(form: str, node: YMap) -> list[list[YNode]]:
    spec = node.get(form)
    if not isinstance(spec, YMap):
        return []
    keys = ("on_drop", "on_end") if form == "auction" else ("do",)
    return [_steps_of(spec.get(k)) for k in keys]


def _substitute(node: Any, subs: dict) -> Any:
    """The AST with each Name whose id is in `subs` replaced by that (already parsed) expression."""
    if isinstance(node, A.Name) and node.id in subs:
        return subs[node.id]
    if isinstance(node, tuple):
        return tuple(_substitute(x, subs) for x in node)
    if not is_dataclass(node) or not isinstance(node, A.Node):
        return node
    changes = {}
    for f in fields(node):
        if f.name == "span":
            continue
        v = getattr(node, f.name)
        nv = _substitute(v, subs)
        if nv is not v:
            changes[f.name] = nv
    return replace(node, **changes) if changes else node


class _Gen:
    """Builds the plain steps of one construct; `subs` maps placeholder names to the author's parsed expressions."""

    def __init__(self, builder, node: YMap, common: dict, loops: tuple):
        self.b = builder
        self.span: Span = node.span
        self.loops = loops
        self.base = dict(id=common["id"], path=common["path"], label="", source="", note="", span=node.span,
                         explicit_id=False)
        self.subs: dict[str, A.Expr] = {}
        self._seen: set = set()

    def locate(self, a: int, b: int) -> Span:
        return self.span

    def _report(self, diags: list) -> None:
        for d in diags:  # an author's expression used in several places reports its mistake once
            key = (d.code, d.message, d.span)
            if key not in self._seen:
                self._seen.add(key)
                self.b.diags.append(d)

    def expr(self, text: str) -> M.CExpr:
        try:
            ast = _substitute(parse_expression(text, self.locate), self.subs)
        except DiagnosticError as exc:  # pragma: no cover - generated text always parses
            raise AssertionError(f"generated expression does not parse: {text}: {exc}") from None
        diags: list = []
        fn, _t = Compiler(self.b.local_scope, diags).expr(ast)
        self._report(diags)
        return M.CExpr(text, ast, fn, self.span)

    def stmts(self, text: str, loops: tuple = ()) -> tuple[M.CStmt, ...]:
        asts = _substitute(parse_statements(text, self.locate), self.subs)
        pieces = split_statements(text)
        texts = pieces if len(pieces) == len(asts) else [text] * len(asts)
        return tuple(M.CStmt(t, s, self._stmt_fn(s, loops), self.span) for t, s in zip(texts, asts))

    def _stmt_fn(self, s: A.Stmt, loops: tuple):
        diags: list = []
        c = StatementCompiler(self.b.local_scope, diags, self.loops + loops, self.b.seq_params, self.b.kinds)
        fn = c.stmt(s)
        self._report(diags)
        return fn

    def do(self, text: str, loops: tuple = ()) -> M.ActionStep:
        return M.ActionStep(**self.base, stmts=self.stmts(text, loops))

    def if_(self, cond: str, then, other=()) -> M.IfStep:
        return M.IfStep(**self.base, cond=self.expr(cond), then=tuple(then), other=tuple(other))

    def loop(self, name: str, body) -> M.LoopStep:
        return M.LoopStep(**self.base, mode="forever", cond=None, body=tuple(body), name=name)

    def for_each(self, var: str, iterable: str, body, name: Optional[str] = None) -> M.ForEachStep:
        return M.ForEachStep(**self.base, var=var, iterable=self.expr(iterable), body=tuple(body), name=name)

    def decision(self, player: str, options: str, prompt: Optional[M.CExpr], bind: str, kind: str = "one",
                 default: Optional[str] = "none") -> M.DecisionSpec:
        return M.DecisionSpec(player=self.expr(player), kind=kind, options=self.expr(options) if options else None,
                              min=None, max=None, prompt=prompt, bind=bind,
                              default=self.expr(default) if default is not None else None, optional=False,
                              span=self.span)

    def user(self, name: str, node: Optional[YNode], default: str) -> None:
        """Parse the author's expression (or the default text) and keep it under a placeholder name."""
        ast = self.b.text.parse_expr(node) if node is not None else None
        if ast is None:
            ast = parse_expression(default, self.locate)
        else:  # compiled once alone, so its mistakes are reported at their place
            diags: list = []
            Compiler(self.b.local_scope, diags).expr(ast)
            self._report(diags)
        self.subs[name] = ast

    def template(self, node: Optional[YNode]) -> Optional[M.CExpr]:
        if not isinstance(node, YScalar) or node.value is None:
            return None
        ast = self.b.text.parse_template(node)
        if ast is None:
            return None
        diags: list = []
        fn, _ = Compiler(self.b.local_scope, diags).expr(ast)
        self._report(diags)
        return M.CExpr(str(node.value), ast, fn, node.span)


def _check_keys(builder, spec: YMap, keys: tuple, what: str) -> None:
    for k in spec.entries:
        if k not in keys:
            builder.err("E204", f"'{k}' is not a setting of {what}", spec.key_span(k),
                        did_you_mean(k, keys) or "settings: " + ", ".join(keys))


def _text(node: Optional[YNode], default: str = "") -> str:
    v = _plain(node)
    return default if v is None else (str(v).lower() if isinstance(v, bool) else str(v))


# ------------------------------------------------------------------ auction
def auction(builder, node: YMap, common: dict, auto: str, loops: tuple) -> Optional[M.ConstructStep]:
    spec = node.get("auction")
    if not isinstance(spec, YMap):
        builder.err("E203", "'auction:' takes its settings as a mapping (form, from, limit, ...)", node.span)
        return None
    _check_keys(builder, spec, AUCTION_KEYS, "an auction")
    form = _text(spec.get("form"), "open")
    if form not in AUCTION_FORMS:
        builder.err("E204", f"unknown auction form '{form}'", spec.get("form").span,
                    did_you_mean(form, AUCTION_FORMS) or "forms: " + ", ".join(AUCTION_FORMS))
        return None
    # price and ties: a word, or an expression that gives one while playing (e.g. from an option)
    price = _text(spec.get("price"), "first")
    ties = _text(spec.get("ties"), "first_in_order")
    for key, word, words in (("price", price, ("first", "second")), ("ties", ties, TIES)):
        if word not in words and (not any(ch in word for ch in "'\" (") or spec.get(key) is None):
            builder.err("E204", f"unknown {'price' if key == 'price' else 'tie rule'} '{word}'", spec.get(key).span,
                        did_you_mean(word, words) or f"one of {', '.join(words)}, or an expression that gives one")
    if spec.get("limit") is None and spec.get("offer") is None:
        builder.err("E202", "an auction needs 'limit:' (the most a bidder may bid, e.g. what they hold)", spec.span,
                    "e.g. limit: \"bidder.coins\"")
    g = _Gen(builder, node, common, loops)
    B = str(_plain(spec.get("bidder"), "bidder"))
    R = str(_plain(spec.get("as"), "auction"))
    h = {w: hidden("a", node, w) for w in ("passes", "out", "said", "stand", "order", "bid", "bids", "top", "tied",
                                           "sec", "elig", "dropped", "amt")}
    g.user("FROM_", spec.get("from"), "players[0]")
    g.user("DIR_", spec.get("dir"), "'cw'")
    g.user("MAY_", spec.get("may_bid"), "true")
    g.user("MIN_", spec.get("min_bid"), "1")
    g.user("RAISE_", spec.get("min_raise"), "1")
    g.user("LIMIT_", spec.get("limit"), "0")
    g.user("FINAL_", spec.get("pass_is_final"), "false")
    said = {k: spec.get(k) if _plain(spec.get(k)) is not False else None for k in ("say_excluded", "say_short")}
    g.user("SAYX_", said["say_excluded"], "'{excluded} may not bid and pass'")
    g.user("SAYS_", said["say_short"], "'{" + B + "} cannot bid enough and passes'")
    say_short = [] if _plain(spec.get("say_short")) is False else [g.do("log SAYS_")]
    prompt = g.template(spec.get("prompt"))
    offer = spec.get("offer")
    offer_kind = _text(spec.get("offer_kind"), "one")
    if offer is not None and form != "sealed":
        builder.err("E204", "'offer:' (bids that are things, e.g. cards) is for a sealed auction", spec.key_span("offer"),
                    "use form: sealed, or bid amounts with limit:")
    if offer_kind not in ("one", "subset"):
        builder.err("E204", f"offer_kind is 'one' or 'subset', not '{offer_kind}'", spec.get("offer_kind").span)
    g.user("AMOUNT_", spec.get("amount"), "bid")
    parts_nodes = part_nodes("auction", node)
    on_drop = tuple(builder.block(parts_nodes[0], f"{auto}.on_drop.", loops))
    on_end = tuple(builder.block(parts_nodes[1], f"{auto}.on_end.", loops))
    P, OUT, SAID, STAND, ORD, BID = h["passes"], h["out"], h["said"], h["stand"], h["order"], h["bid"]
    low = f"({R}.price + (RAISE_) if {R}.winner != none else (MIN_))"
    start = g.do(f"let {R} = record(winner: none, price: 0, dropped: []); let {STAND} = record(); "
                 f"let excluded = [{B} for {B} in players if not (MAY_)]")
    quiet = _plain(spec.get("say_excluded")) is False
    say_excluded = g.if_("not empty(excluded)", [] if quiet else [g.do("log SAYX_")])
    # a player who drops out: on record, then the author's on_drop steps with the player and standing bid bound
    drop_now = [g.do(f"let standing = {STAND}[{B}]; {h['dropped']} += record(player: {B}, bid: standing)"), *on_drop]
    steps: list = [start, say_excluded]
    if form == "open":
        L = hidden("a", node, "loop")
        # who dropped out, with their standing bids, is tracked only when something reads it (on_drop, or
        # '.dropped' / 'standing' anywhere in the ruleset): a plain auction keeps just the top bid and the passes
        track = bool(on_drop) or mentions(getattr(builder, "root", None) or node, ("dropped", "standing"))
        T, LEAD = h["top"], h["tied"]  # the top bid and bidder, as plain locals for the checks of every turn
        low = f"({T} + (RAISE_) if {LEAD} != none else (MIN_))"
        steps[0] = g.do(f"let {R} = record(winner: none, price: 0, dropped: []); let {STAND} = record(); "
                        f"let {T} = 0; let {LEAD} = none; let {P} = 0; let {OUT} = []; let {SAID} = []; let {ORD} = []; let {h['dropped']} = []; "
                        f"let excluded = [{B} for {B} in players if not (MAY_)]; let {B} = FROM_")
        passed = [g.do(f"{P} += 1"), g.if_("FINAL_", [g.do(f"{OUT} += {B}"), *(drop_now if track else [])],
                                           [g.do(f"{ORD} -= {B}; {ORD} += {B}")] if track else [])]
        bid = (f"let {R} = record(winner: {B}, price: {BID}, dropped: []); set {T} = {BID}; set {LEAD} = {B}; "
               f"set {P} = 0"
               + (f"; set {STAND}[{B}] = {BID}; {ORD} -= {B}" if track else ""))
        asked = [
            g.if_(f"LIMIT_ < {low}",
                  [g.if_(f"{B} not in {SAID}", [*say_short, g.do(f"{SAID} += {B}")]),
                   g.do(f"{P} += 1"),
                   # a player who cannot bid enough passes: out at once when passes are final
                   g.if_("FINAL_", [g.do(f"{OUT} += {B}"), *(_again(drop_now) if track else [])],
                         [g.do(f"{ORD} -= {B}; {ORD} += {B}")] if track else [])],
                  [ChooseOf(g, B, f"[none] + ({low}..(LIMIT_))", prompt, BID),
                   g.if_(f"{BID} == none", passed, [g.do(bid)])]),
        ]
        body = [
            g.if_(f"not (MAY_) or {B} in {OUT}", [g.do(f"{P} += 1")], asked),
            g.if_(f"{P} >= player_count - 1 if {LEAD} != none else {P} >= player_count",
                  [g.do(f"break {L}", (L,))]),
            g.do(f"set {B} = next_player({B}, dir: DIR_)"),
        ]
        steps.append(g.loop(L, body))
        if track:  # passes that were not final: those who passed drop out at the end, in the order of their last pass
            steps.append(g.for_each(B, f"[q for q in {ORD} if q != {R}.winner and q not in {OUT}]",
                                    _again(drop_now)))
    elif form == "once_around":
        steps[0] = g.do(f"let {R} = record(winner: none, price: 0, dropped: []); let {STAND} = record(); "
                        f"let {h['dropped']} = []; "
                        f"let excluded = [{B} for {B} in players if not (MAY_)]")
        prev = h["top"]
        turn = [
            g.if_("not (MAY_)", [], [
                g.if_(f"LIMIT_ < {low}", [*say_short, *drop_now], [
                    ChooseOf(g, B, f"[none] + ({low}..(LIMIT_))", prompt, BID),
                    g.if_(f"{BID} == none", _again(drop_now), [
                        g.do(f"let {prev} = {R}.winner; set {R}['price'] = {BID}; set {R}['winner'] = {B}; "
                             f"set {STAND}[{B}] = {BID}"),
                        # the player outbid drops out with the bid they had standing
                        g.for_each(B, f"[{prev}] if {prev} != none else []", _again(drop_now)),
                    ])])]),
        ]
        steps.append(g.for_each(B, "seat_order(FROM_, dir: DIR_)", turn))
    else:  # sealed: few steps (a seize or a lot is sold often): the reckoning is one step
        E, BIDS, TOP, TIED, SEC, AMT = h["elig"], h["bids"], h["top"], h["tied"], h["sec"], h["amt"]
        track = bool(on_drop) or mentions(getattr(builder, "root", None) or node, ("dropped", "standing"))
        if offer is None:  # bids are amounts: pass first, then min_bid up to the limit
            SH = h["said"]
            steps[0] = g.do(f"let excluded = [{B} for {B} in players if not (MAY_)]; "
                            f"let {E} = [{B} for {B} in seat_order(FROM_, dir: DIR_) if (MAY_) and LIMIT_ >= (MIN_)]"
                            + (f"; let {SH} = [{B} for {B} in seat_order(FROM_, dir: DIR_) if (MAY_) and LIMIT_ < (MIN_)]"
                               if say_short else ""))
            if say_short:
                steps.append(g.if_(f"not empty({SH})", [g.for_each(B, SH, say_short)]))
            dec = g.decision(B, f"[none] + ((MIN_)..(LIMIT_))", prompt, BID)
        else:  # bids are things (cards): what the bidder offers, worth its 'amount'
            steps[0] = g.do(f"let excluded = [{B} for {B} in players if not (MAY_)]; "
                            f"let {E} = [{B} for {B} in seat_order(FROM_, dir: DIR_) if MAY_]")
            g.user("OFFER_", offer, "[]")
            if offer_kind == "subset":
                dec = replace(g.decision(B, "OFFER_", prompt, BID, kind="subset", default="[]"), min=g.expr("0"))
            else:
                dec = replace(g.decision(B, "OFFER_", prompt, BID), optional=True)
        steps.append(M.SealedStep(**g.base, var=B, iterable=g.expr(E), decision=dec, bind=BIDS))
        picks = {"first_in_order": f"{TIED}[0]", "random": f"random({TIED})",
                 "nobody": f"({TIED}[0] if count({TIED}) == 1 else none)"}
        pays = {"first": f"{TOP}", "second": f"({SEC} if {SEC} != none else (MIN_))"}
        if ties in picks:
            pick = picks[ties]
        else:  # chosen while playing: only the branch taken is worked out (a random pick draws only then)
            g.user("TIES_", spec.get("ties"), "'first_in_order'")
            pick = (f"{picks['first_in_order']} if TIES_ == 'first_in_order' else {picks['random']} "
                    f"if TIES_ == 'random' else {picks['nobody']}")
        if price in pays:
            pay = pays[price]
        else:
            g.user("PRICE_", spec.get("price"), "'first'")
            pay = f"{pays['first']} if PRICE_ == 'first' else {pays['second']}"
        W = h["order"]
        if offer is None and spec.get("amount") is None:  # a bid is its own worth
            worth, amounts = f"{BIDS}[q]", f"let {AMT} = [{BIDS}[q] for q in {E}]; "
        else:
            worth = f"{AMT}[index_of({E}, q)]"
            amounts = f"let {AMT} = [none if bid == none or bid == [] else (AMOUNT_) for bid in [{BIDS}[q] for q in {E}]]; "
        # what each bid is worth (none: a pass, or not a valid bid), the top, who tied, the winner and the price
        steps.append(g.do(
            amounts +
            f"let {TOP} = max([a for a in {AMT} if a != none]); "
            f"let {TIED} = [q for q in {E} if {worth} != none and {worth} == {TOP}]; "
            f"let {W} = ({pick}) if not empty({TIED}) else none; "
            f"let {SEC} = max([{worth} for q in {E} if q != {W} and {worth} != none]); "
            f"let {R} = record(winner: {W}, price: ({pay}) if {W} != none else 0, "
            f"bid: {BIDS}[{W}] if {W} != none else none, tied: {TIED}, dropped: [])"))
        if track:
            steps.append(g.do(f"let {STAND} = {BIDS}; let {h['dropped']} = []"))
            steps.append(g.for_each(B, f"[q for q in {E} if q != {W}]", drop_now))
            steps.append(g.do(f"set {R}['dropped'] = {h['dropped']}"))
        steps.extend(on_end)
        rule = _auction_rule(form, spec, price, ties, B)
        settings = tuple((k, str(_plain(spec.get(k)))) for k in AUCTION_KEYS
                         if spec.get(k) is not None and k not in ("on_drop", "on_end"))
        parts = tuple((k, v) for k, v in (("on_drop", on_drop), ("on_end", on_end)) if v)
        return M.ConstructStep(**common, construct="auction", rule=rule, settings=settings, run=tuple(steps),
                               parts=parts)
    steps.append(g.do(f"set {R}['dropped'] = {h['dropped']}"))
    steps.extend(on_end)
    rule = _auction_rule(form, spec, price, ties, B)
    settings = tuple((k, str(_plain(spec.get(k)))) for k in AUCTION_KEYS
                     if spec.get(k) is not None and k not in ("on_drop", "on_end"))
    parts = tuple((k, v) for k, v in (("on_drop", on_drop), ("on_end", on_end)) if v)
    return M.ConstructStep(**common, construct="auction", rule=rule, settings=settings, run=tuple(steps), parts=parts)


def _again(steps: list) -> list:
    """The same steps once more, as new objects: each step object has one place in the program (the generated
    stretches of runtime/blocks.py find a step by its place); the copies keep their paths, so they count as one."""
    return copy.deepcopy(steps)


def ChooseOf(g: _Gen, player: str, options: str, prompt, bind: str) -> M.ChooseStep:  # noqa: N802 - reads as a step
    return M.ChooseStep(**g.base, decision=g.decision(player, options, prompt, bind))


def _auction_rule(form: str, spec: YMap, price: str, ties: str, B: str) -> str:
    """The auction in words, as the chart's box says it (the settings as written, no bookkeeping)."""
    frm = _text(spec.get("from"), "the first player")
    d = _text(spec.get("dir"), "clockwise")
    limit = _text(spec.get("limit"))
    may = _text(spec.get("may_bid"))
    lead = {"open": f"Open auction from {frm}, going {d}: raise or pass until all others pass",
            "once_around": f"Once-around auction from {frm}, going {d}: each bids once (more than the top bid) or passes",
            "sealed": f"Sealed auction: all bid in secret, then reveal; the highest bid wins, paying "
                      f"{'their bid' if price == 'first' else 'the second highest bid' if price == 'second' else price} "
                      f"(ties: {ties.replace('_', ' ') if ties in TIES else ties})"}[form]
    if form == "sealed" and spec.get("offer") is not None:
        lead = (f"Sealed auction: each bids in secret from {_text(spec.get('offer'))}, then all reveal; the bid worth "
                f"most wins (worth: {_text(spec.get('amount'), 'the bid')}; ties: {ties.replace('_', ' ') if ties in TIES else ties})")
    bits = [lead]
    if may:
        bits.append(f"only players with {may} bid (the others pass)")
    if limit:
        bits.append(f"a bid is at most {limit}")
    if form == "open" and spec.get("pass_is_final") is not None:
        bits.append(f"a pass is final when {_text(spec.get('pass_is_final'))}")
    return "; ".join(bits)


# ------------------------------------------------------------------ respond
def respond(builder, node: YMap, common: dict, auto: str, loops: tuple) -> Optional[M.ConstructStep]:
    spec = node.get("respond")
    if not isinstance(spec, YMap):
        builder.err("E203", "'respond:' takes its settings as a mapping (from, choose, do, ...)", node.span)
        return None
    _check_keys(builder, spec, RESPOND_KEYS, "a response window")
    until = _text(spec.get("until"), "first")
    if until not in ("first", "each", "all_pass"):
        builder.err("E204", f"a response window lasts until 'first' (the first who responds acts), 'each' (every "
                    f"player gets one chance) or 'all_pass' (again and again until a whole round passes), not '{until}'",
                    spec.get("until").span)
    if spec.get("from") is None:
        builder.err("E202", "a response window needs 'from:' (the player the others answer; they respond in turn "
                    "after them)", spec.span)
    ch = spec.get("choose")
    if not isinstance(ch, YMap):
        builder.err("E202", "a response window needs 'choose:' (the decision each player is offered)", spec.span,
                    "e.g. choose: {kind: yesno, prompt: \"Challenge {claim.who}?\"}")
        return None
    g = _Gen(builder, node, common, loops)
    Q = str(_plain(spec.get("each"), "q"))
    ANS = str(_plain(spec.get("as"), "answer"))
    h = {w: hidden("r", node, w) for w in ("order", "any", "got", "who")}
    W = h["who"]
    g.user("FROM_", spec.get("from"), "players[0]")
    g.user("DIR_", spec.get("dir"), "'cw'")
    g.user("MAY_", spec.get("may"), "true")
    g.user("RESP_", spec.get("responds"), f"{ANS} != none and {ANS} != false")
    comp = Compiler(builder.local_scope, builder.diags)
    dec = builder.decision(ch, comp, default_player=Q)
    dec = replace(dec, bind=h["got"])
    (do_nodes,) = part_nodes("respond", node)
    L = hidden("r", node, "loop")
    act = tuple(builder.block(do_nodes, f"{auto}.do.", loops))
    offer = [
        M.ChooseStep(**g.base, decision=dec),
        g.do(f"let {ANS} = {h['got']}"),
    ]
    if until == "first":
        offer.append(g.if_("RESP_", [g.do(f"let {W} = {Q}; break {L}", (L,))]))
        steps = [g.do(f"let {W} = none; let {ANS} = none; let {Q} = none"),
                 g.for_each(Q, f"[{Q} for {Q} in seat_order(FROM_, dir: DIR_, include_start: false) if MAY_]",
                            offer, name=L),
                 g.do(f"let {Q} = {W}"),
                 g.if_(f"{Q} != none", list(act), [g.do(f"let {ANS} = none")])]
    elif until == "each":  # every player offered gets one chance; each response is acted on at once
        offer.append(g.if_("RESP_", [g.do(f"let {W} = {Q}"), *act]))
        steps = [g.do(f"let {W} = none; let {ANS} = none; let {Q} = none"),
                 g.for_each(Q, f"[{Q} for {Q} in seat_order(FROM_, dir: DIR_, include_start: false) if MAY_]",
                            offer, name=L),
                 g.do(f"let {Q} = {W}")]
    else:
        offer.append(g.if_("RESP_", [g.do(f"let {W} = {Q}; set {h['any']} = true"), *act]))
        R2 = hidden("r", node, "round")
        steps = [g.do(f"let {W} = none; let {ANS} = none; let {Q} = none"),
                 g.loop(R2, [
                     g.do(f"let {h['any']} = false"),
                     g.for_each(Q, f"[{Q} for {Q} in seat_order(FROM_, dir: DIR_, include_start: false) if MAY_]",
                                offer, name=L),
                     g.if_(f"not {h['any']}", [g.do(f"break {R2}", (R2,))]),
                 ]),
                 g.do(f"let {Q} = {W}")]
    frm = _text(spec.get("from"), "the first player")
    rule = (f"Each other player in turn after {frm} may respond"
            + (f" (those with {_text(spec.get('may'))})" if spec.get("may") is not None else "")
            + ("; the first who responds acts" if until == "first"
               else "; each may respond once, and every response is acted on" if until == "each"
               else "; every response is acted on, round after round until everyone passes"))
    settings = tuple((k, str(_plain(spec.get(k)))) for k in RESPOND_KEYS
                     if spec.get(k) is not None and k not in ("do", "choose"))
    return M.ConstructStep(**common, construct="respond", rule=rule, settings=settings, run=tuple(steps),
                           parts=(("do", act),) if act else ())
