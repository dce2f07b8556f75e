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
This module holds what they share; the auction is in auction.py, the response window in respond.py.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import fields, is_dataclass, replace
from typing import Any, Optional

from ...diagnostics import DiagnosticError, Span, did_you_mean
from ...dsl import ast as A
from ...dsl.builtins import REGISTRY
from ...dsl.closures.compiler import Compiler
from ...dsl.closures.statements import StatementCompiler
from ...dsl.parser import parse_expression, parse_statements, plain_locator
from ...model import ruleset as M
from ..dsl_text import split_statements
from ..yaml_source import YMap, YNode, YScalar, YSeq

AUCTION_FORMS = ("open", "once_around", "sealed", "fixed_price", "descending", "betting")
AUCTION_KEYS = ("form", "bidder", "from", "dir", "may_bid", "min_bid", "min_raise", "max_raise", "limit", "pass_is_final", "price",
                "ties", "offer", "offer_kind", "amount", "prompt", "say_excluded", "say_short", "say_result", "as", "last_takes",
                "seller", "pay", "paid_to", "no_bid", "all_pay", "lot", "to", "start_price", "drop", "must_open",
                "lowest_wins", "rebids", "receive", "on_drop", "on_end")
RESPOND_KEYS = ("from", "dir", "each", "may", "choose", "responds", "until", "as", "do")
TIES = ("first_in_order", "random", "nobody", "rebid")


RESULT_FIELDS = {"winner", "price", "dropped", "player", "bid", "tied", "seller", "lot", "unsold", "asked",
                 "called", "pot"}  # an auction's result and its dropped records
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


# The most steps the constructs of one ruleset may expand into (as aliases are bounded by the YAML reader): a
# hostile file of many or deeply nested constructs gets one diagnostic instead of a long load.
MAX_EXPANDED_STEPS = 50_000


def within_budget(builder, spec: YMap) -> bool:
    """Whether the steps expanded so far stay within MAX_EXPANDED_STEPS; reported once (E006) when not."""
    if getattr(builder, "_expanded", 0) <= MAX_EXPANDED_STEPS:
        return True
    if not getattr(builder, "_expanded_reported", False):
        builder._expanded_reported = True
        builder.err("E006", f"the auctions and response windows expand past {MAX_EXPANDED_STEPS:,} steps", spec.span,
                    "nest fewer constructs inside each other's steps, or call a sequence from them")
    return False


def reads(builder, node: YNode, words: tuple, cache: bool = True) -> bool:
    """Whether any text under `node` contains one of the words (a conservative test of use); for the whole
    ruleset the answer is kept, so many constructs do not walk a large file again and again."""
    if not cache:
        return mentions(node, words)
    memo = builder.__dict__.setdefault("_reads", {})
    key = (id(node), words)
    if key not in memo:
        memo[key] = mentions(node, words)
    return memo[key]


def texts(root: YNode):
    """Every text of a part of the ruleset (its string scalars, at any depth)."""
    return (n.value for n in scalars(root))


def scalars(root: YNode):
    """Every string scalar of a part of the ruleset, at any depth."""
    todo = [root] if root is not None else []
    while todo:
        n = todo.pop()
        if isinstance(n, YMap):
            todo.extend(n.entries.values())
        elif isinstance(n, YSeq):
            todo.extend(n.items)
        elif isinstance(n, YScalar) and isinstance(n.value, str):
            yield n


def mentions(root: YNode, words: tuple) -> bool:
    """Whether any text of the ruleset contains one of the words (a conservative test of use)."""
    return any(w in text for text in texts(root) for w in words)


def reads_hidden(builder, ast) -> bool:  # reads what some seat cannot see (model/secrecy.py): nothing may show it
    return getattr(builder, "secrets", None) is not None and ast is not None and bool(builder.secrets.reads(ast))


def _plain(node, default=None):
    return node.plain() if node is not None else default


def _steps_of(node) -> list:
    if node is None:
        return []
    return list(node.items) if isinstance(node, YSeq) else [node]


def hidden(kind: str, node: YNode, what: str) -> str:
    """A bookkeeping local of one construct. Named from what the construct says, not where it is written: the
    names are part of a saved game's state, and a comment line added above must not change them (logs and saves
    survive harmless edits). Two constructs that say exactly the same run one after the other, never inside each
    other, and each sets its locals before it reads them, so sharing the names is harmless."""
    digest = _DIGESTS.get(id(node))
    if digest is None or digest[0] is not node:  # worked out once per construct (not once per hidden name)
        digest = _DIGESTS[id(node)] = (node, hashlib.sha1(json.dumps(node.plain(), sort_keys=True, default=str)
                                                          .encode("utf-8")).hexdigest()[:10])
        if len(_DIGESTS) > 4096:
            _DIGESTS.clear()
            _DIGESTS[id(node)] = digest
    return f"__{kind}{digest[1]}_{what}"


_DIGESTS: dict = {}


def names(form: str, node: YMap) -> set[str]:
    """The locals a construct binds (for the sequence's scope), the hidden ones included."""
    spec = node.get(form)
    if not isinstance(spec, YMap):
        return set()
    if form == "auction":
        out = {str(_plain(spec.get("bidder"), "bidder")), str(_plain(spec.get("as"), "auction")), "standing",
               "excluded"}
        out |= {hidden("a", node, w) for w in ("passes", "out", "said", "stand", "order", "bid", "bids", "top",
                                                "tied", "sec", "elig", "dropped", "amt", "drop", "seller", "lot",
                                                "loop", "may", "x")}
        if spec.get("form") is not None and spec.get("form").plain() == "sealed":
            out.add("bid")  # what a sealed bid is worth is worked out with the bid bound as 'bid'

    else:
        out = {str(_plain(spec.get("each"), "q")), str(_plain(spec.get("as"), "answer"))}
        out |= {hidden("r", node, w) for w in ("order", "any", "got", "who", "elig")}
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

    def _count(self) -> None:
        self.b._expanded = getattr(self.b, "_expanded", 0) + 1

    def do(self, text: str, loops: tuple = ()) -> M.ActionStep:
        self._count()
        return M.ActionStep(**self.base, stmts=self.stmts(text, loops))

    def if_(self, cond: str, then, other=()) -> M.IfStep:
        self._count()
        return M.IfStep(**self.base, cond=self.expr(cond), then=tuple(then), other=tuple(other))

    def loop(self, name: str, body) -> M.LoopStep:
        self._count()
        return M.LoopStep(**self.base, mode="forever", cond=None, body=tuple(body), name=name)

    def for_each(self, var: str, iterable: str, body, name: Optional[str] = None) -> M.ForEachStep:
        self._count()
        return M.ForEachStep(**self.base, var=var, iterable=self.expr(iterable), body=tuple(body), name=name)

    def decision(self, player: str, options: str, prompt: Optional[M.CExpr], bind: str, kind: str = "one",
                 default: Optional[str] = "none", amounts: Optional[tuple[str, str]] = None,
                 secret: Optional[bool] = None) -> M.DecisionSpec:
        """`amounts` (low, high): `options` is `[none] + (low..high)`, said again so the engine counts them; `secret` as
        a choose step's (None: secret when an option is a card the others cannot see)."""
        self._count()
        return M.DecisionSpec(player=self.expr(player), kind=kind, options=self.expr(options) if options else None,
                              min=None, max=None, prompt=prompt, bind=bind,
                              default=self.expr(default) if default is not None else None, optional=False,
                              span=self.span, secret=secret,
                              amounts=None if amounts is None else (self.expr(amounts[0]), self.expr(amounts[1])))

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


def construct_settings(builder, node: YMap, form: str, keys: tuple, what: str, examples: str) -> Optional[YMap]:
    """The settings mapping of a construct step (`form:`), its keys checked; None (reported) when it is not a
    mapping."""
    spec = node.get(form)
    if not isinstance(spec, YMap):
        builder.err("E203", f"'{form}:' takes its settings as a mapping ({examples})", node.span)
        return None
    _check_keys(builder, spec, keys, what)
    return spec


def _check_keys(builder, spec: YMap, keys: tuple, what: str) -> None:
    for k in spec.entries:
        if k not in keys:
            builder.err("E204", f"'{k}' is not a setting of {what}", spec.key_span(k),
                        did_you_mean(k, keys) or "settings: " + ", ".join(keys))


def _text(node: Optional[YNode], default: str = "") -> str:
    v = _plain(node)
    return default if v is None else (str(v).lower() if isinstance(v, bool) else str(v))


# ------------------------------------------------------------------ respond


def said_setting(w, settings: dict, key: str, default: str) -> str:
    """A construct's setting as players read it (`w`: the words of tools/words), `default` when it is not set; a
    setting that is no expression is said as written."""
    if key not in settings:
        return default
    try:
        return w.expr(parse_expression(settings[key], plain_locator()))
    except Exception:  # noqa: BLE001 - a setting that is no expression is said as written
        return settings[key]


def steady(builder, may: A.Expr, result: str) -> bool:
    """Whether `may_bid` gives each player the same answer all through an open auction, so the answers worked out as it
    starts (`excluded`) stand for it: the ruleset has no triggers and the auction no on_drop steps (nothing but its own
    bookkeeping runs while bidding goes on), and may_bid reads none of the names that change then (the result, the
    names the auction binds) and draws no chance, itself or through a ruleset function (it is worked out fewer times)."""
    root, functions = getattr(builder, "root", None), getattr(getattr(builder, "secrets", None), "functions", None)
    if not isinstance(root, YMap) or root.get("triggers") is not None or functions is None:
        return False
    todo, seen = [may], set()
    while todo:
        for n in todo.pop().walk():
            if isinstance(n, A.Name) and n.id in (result, "excluded", "standing"):
                return False
            fd = functions.get(n.func) if isinstance(n, A.Call) else None
            if isinstance(n, A.Call) and fd is None:
                if REGISTRY.get(n.func) is None or REGISTRY[n.func].chance:
                    return False
            elif fd is not None and n.func not in seen:
                seen.add(n.func)
                todo.append(fd[1])
    return True
