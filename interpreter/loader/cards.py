"""Build the cards of a ruleset from its card groups: one card, or one per combination of 'for' values."""

from __future__ import annotations

import itertools
import math
import re
from typing import Protocol

from ..diagnostics import Diagnostic, RuleError, Span, did_you_mean, error, warning
from ..dsl.closures.compiler import Compiler
from ..dsl.scope import LoadTimeContext, Scope, Symbol
from ..model.templates import ONE, singular_after_one
from ..values import Card
from .dsl_text import DslText
from .yaml_source import YMap, YScalar, YSeq



class Builder(Protocol):
    """What building cards needs of the ruleset builder (loader.build.Builder passes itself)."""

    root: YMap
    diags: list[Diagnostic]
    text: DslText

    def err(self, code: str, message: str, span: Span | None, hint: str | None = None) -> None: ...

_TEMPLATE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_BRACED = re.compile(r"\{[^{}]*\}")
MAX_CARDS = 10_000


def _twice_hint(names: list, values: list) -> str:
    """Why a group makes an id twice: a 'for' list that names a value twice (copies are a count), or an id template
    that leaves a 'for' name out."""
    for k, vs in zip(names, values):
        seen: set = set()
        again = next((v for v in (vs if isinstance(vs, list) else []) if repr(v) in seen or seen.add(repr(v))), None)
        if again is not None:
            return (f"'for' lists {k} {again!r} more than once: list each value once, and give copies with a count "
                    f"(count: 2 makes ids #1 and #2; count: \"=...\" may read {k})")
    return "make the id template include every 'for' name, e.g. \"{rank}{suit}\""


def build_cards(b: Builder, consts: dict[str, Symbol]) -> list[Card]:
    cards: list[Card] = []
    seen: dict[str, object] = {}
    groups = b.root.get("cards")
    if not isinstance(groups, YSeq):
        return cards
    node = b.root.get("card_defaults")
    defaults = node.plain() if isinstance(node, YMap) else {}  # what a card that does not say has
    ruleset_values = {k: sym.value for k, sym in consts.items() if sym.detail in ("parameter", "option")}  # card text
    for g in groups:
        if not isinstance(g, YMap):
            continue
        loops = g.get("for")
        names, values = [], []
        if isinstance(loops, YMap):
            for k, v in loops.items():
                names.append(k)
                values.append(v.plain() if isinstance(v, YSeq) else _for_values(b, v, consts))
        combos = list(itertools.islice(itertools.product(*values), MAX_CARDS + 1)) if names else [()]
        scope = Scope(dict(consts), set(), set(), set(), set(),
                      {c for sym in consts.values() if sym.kind == "table" for row in sym.value.values() for c in row},
                      {}, {}, set(names))
        comp = Compiler(scope, b.diags)
        # may read the group's 'for' names ("=court[kind].copies") and player_count: then worked out for each
        # player count the ruleset allows, the most copies made, and those beyond a game's count left out of it
        count = _Copies(b, g.get("count"), Compiler(scope.with_locals(set(names) | {"player_count"}), b.diags))
        counts = range(b.players_range[0], b.players_range[1] + 1) if count.by_players else (None,)
        if len(cards) + sum(max(count.of(dict(zip(names, combo)), n) for n in counts) for combo in combos) > MAX_CARDS:
            b.err("E318", f"more than {MAX_CARDS} cards", g.span)
            return cards
        attr_nodes = g.get("attributes")
        compiled = {}
        if isinstance(attr_nodes, YMap):
            for k, v in attr_nodes.items():
                if isinstance(v, YScalar) and isinstance(v.value, str) and v.value.startswith("="):
                    compiled[k] = b.text.expr(v, comp, skip=1)
                elif isinstance(v, YScalar) and isinstance(v.value, float) and not math.isfinite(v.value):
                    b.err("E204", f"card attribute '{k}': {v.value} is not a finite number", v.span,
                          "a card's number is finite: scores of nan or inf decide nothing")  # (issue 38)
                else:
                    compiled[k] = v.plain()
        classes = frozenset(str(c) for c in (g.get("classes").plain() if isinstance(g.get("classes"), YSeq) else []))
        id_node, name_node, doc_node = g.get("id"), g.get("name"), g.get("doc")
        failed: set[str] = set()
        twice: list[str] = []  # the first id this group makes twice (reported once)
        name_expr = None
        for combo in combos:
            env = dict(zip(names, combo))
            attrs = {**defaults, **env}
            for k, v in compiled.items():
                if v is None:
                    continue
                if hasattr(v, "fn"):
                    try:
                        attrs[k] = v.fn(_Ctx(env)) if k not in failed else None
                        if isinstance(attrs[k], float) and not math.isfinite(attrs[k]):
                            raise ValueError(f"{attrs[k]} is not a finite number")
                    except (TypeError, ValueError) as exc:
                        failed.add(k)
                        b.diags.append(error("E315", f"cannot compute attribute '{k}': {exc}", v.span))
                        attrs[k] = None
                    except RuleError as exc:
                        failed.add(k)  # report once per group, not once per card
                        d = exc.diagnostic()
                        if not any(x.code.startswith("E3") and x.span and x.span.line == d.span.line for x in b.diags
                                   if d.span is not None):
                            b.diags.append(d)
                        attrs[k] = None
                else:
                    attrs[k] = _fill(v, env) if isinstance(v, str) else v
            default_id = "-".join(str(x) for x in combo) if combo else None
            cid = _fill(str(id_node.value), env) if isinstance(id_node, YScalar) else default_id
            if cid is None:
                b.err("E202", "a card group without 'for' needs an 'id'", g.span)
                continue
            if isinstance(name_node, YScalar) and str(name_node.value).startswith("="):
                if name_expr is None:
                    name_expr = b.text.expr(name_node, comp, skip=1) or False
                try:
                    cname = str(name_expr.fn(_Ctx(env))) if name_expr else cid
                except RuleError as exc:
                    b.diags.append(exc.diagnostic())
                    name_expr, cname = False, cid
            else:  # a name template may show the group's 'for' names and its attributes: "Lite Metal {n} ({kind})"
                cname = _fill(str(name_node.value), attrs) if isinstance(name_node, YScalar) else cid
            per_count = {n: count.of(env, n) for n in counts}
            copies = max(per_count.values())
            for i in range(copies):
                full = cid if copies == 1 else f"{cid}#{i + 1}"
                if count.by_players and any(i >= c for c in per_count.values()):  # not in every game
                    b.card_players[len(cards)] = frozenset(n for n, c in per_count.items() if i < c)
                if full in seen:
                    if not twice:  # one message for the group, saying why its ids repeat
                        twice.append(full)
                        b.err("E314", f"two cards have the id '{full}'", (id_node or g).span, _twice_hint(names, values))
                    continue
                seen[full] = True
                doc = " ".join(_fill(str(doc_node.value), {**ruleset_values, **attrs}, text=True).split()) \
                    if isinstance(doc_node, YScalar) else ""
                cards.append(Card(len(cards), full, cname, classes, attrs, g.span, doc))
        if isinstance(name_node, YScalar) and isinstance(name_node.value, str) and not name_node.value.startswith("="):
            known = set(names) | set(compiled)
            for unknown in sorted({m.group(1) for m in _TEMPLATE.finditer(name_node.value)} - known):
                b.diags.append(warning("W327", f"the card name names '{{{unknown}}}', which is neither a 'for' name "
                                       "nor an attribute of the group: it is printed as written", name_node.span,
                                       did_you_mean(unknown, sorted(known)) or "a name template may show the 'for' "
                                       f"names and attributes: {', '.join(sorted(known)) or 'none here'}"))
        for node, what in ((name_node, "name"), (doc_node, "text")):
            if isinstance(node, YScalar) and isinstance(node.value, str) and not node.value.startswith("="):
                _braced_expression(b, node, what)
        if isinstance(doc_node, YScalar) and isinstance(doc_node.value, str):
            known = set(names) | set(compiled) | set(defaults) | set(ruleset_values)
            for unknown in sorted({m.group(1) for m in _TEMPLATE.finditer(doc_node.value)} - known):
                b.diags.append(warning("W327", f"the card text names '{{{unknown}}}', which is neither a 'for' name, an "
                                       "attribute of the group nor a parameter or option: it is printed as written",
                                       doc_node.span, did_you_mean(unknown, sorted(known))))
        _number_as_text(b, attr_nodes, names, values)
    _card_order(b, cards)
    return cards


def _braced_expression(b, node: YScalar, what: str) -> None:
    """W327: braces around more than a name (`{trades[trade].title}`) in a card's name or text: only a 'for' name,
    an attribute (or, in the text, a parameter or option) is filled, so it would be printed as written, unwarned."""
    for m in _BRACED.finditer(node.value):
        if not _TEMPLATE.fullmatch(m.group(0)):
            b.diags.append(warning("W327", f"the card {what} has '{m.group(0)}': braces in a card's {what} hold one "
                                   "name (a 'for' name or an attribute), not an expression, so it is printed as "
                                   "written", node.span, "for a name worked out by an expression, write the whole name "
                                   "as one: name: \"=trades[trade].title + ' ' + str(skill)\"" if what == "name" else
                                   "give the card an attribute worked out by an expression (\"=...\") and name it"))


def _number_as_text(b, attr_nodes, names: list, values: list) -> None:
    """W329: an attribute written `"{value}"`, a `for` name of numbers in braces, is filled as text ('3', not 3), so
    comparing or adding it to a number stops the game; the number is `"=value"`."""
    if not isinstance(attr_nodes, YMap):
        return
    for k, v in attr_nodes.items():
        m = _TEMPLATE.fullmatch(v.value) if isinstance(v, YScalar) and isinstance(v.value, str) else None
        if m and m.group(1) in names and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                             for x in values[names.index(m.group(1))]):
            b.diags.append(warning("W329", f"card attribute '{k}' is the text of '{m.group(1)}' ('{{{m.group(1)}}}' "
                                   "fills text), so a sum or a comparison with a number stops the game", v.span,
                                   f"for the number write {k}: \"={m.group(1)}\""))


def _card_order(b: "Builder", cards: list[Card]) -> None:
    """Each card's place in the declared `card_order:` (attribute: the order of its values, first lowest, or
    'ascending' / 'descending' for numbers and text), compared attribute by attribute in the order written; a
    value the list does not name, or a card without the attribute, comes after the named ones; a tie keeps the
    order the cards were declared in."""
    spec = b.root.get("card_order")
    if not isinstance(spec, YMap):
        return
    keys = []
    for attr, node in spec.items():
        order = node.plain()
        if isinstance(order, list):
            twice = next((v for i, v in enumerate(order) if v in order[:i]), None)
            if twice is not None:  # which place does it take? (issue 38: the first, silently)
                b.err("E204", f"the order of '{attr}' names {twice!r} twice", node.span, "name each value once")
            keys.append((attr, {v: i for i, v in reversed(list(enumerate(order)))}, None))
        elif order in ("ascending", "descending"):
            keys.append((attr, None, order))
        else:
            b.err("E204", f"the order of '{attr}' is a list of its values, 'ascending' or 'descending'", node.span)
            continue
        if not any(attr in c.attrs for c in cards):
            b.err("E305", f"no card has the attribute '{attr}'", spec.key_span(attr))

    def key(c: Card) -> tuple:
        out: list = []
        for attr, places, way in keys:
            v = c.attrs.get(attr)
            if places is not None:
                out.append(places.get(v, len(places)))
            elif isinstance(v, bool) or not isinstance(v, (int, float)):
                out.append((1, 0) if v is None else (0, 0))
            else:
                out.append((0, v if way == "ascending" else -v))
        return tuple(out)

    try:
        ranked = sorted(cards, key=lambda c: (key(c), c.index))
    except TypeError:  # pragma: no cover - the keys are numbers or places
        return
    for place, c in enumerate(ranked):
        c.order = place


_RANGE = re.compile(r"^\s*(-?[0-9][0-9_]*)\s*\.\.\s*(-?[0-9][0-9_]*)\s*$")
_RANGE_LIKE = re.compile(r"^\s*-?[0-9][0-9_]*\s*\.\.")  # '1..' and then something that is no whole number


def _for_values(b: Builder, node, consts: dict[str, Symbol]) -> list:
    """The values of one 'for' name given as one scalar: a range 'LOW..HIGH' of whole numbers (both included),
    an expression '=...' giving a list (e.g. '=1..max_rank'), or one plain value."""
    value = node.value if isinstance(node, YScalar) else None
    if not isinstance(value, str):
        return [node.plain()]
    m = _RANGE.match(value) if len(value) <= 80 else None
    if m is None and _RANGE_LIKE.match(value):
        b.err("E204", "this looks like a range but is not LOW..HIGH of whole numbers", node.span,
              f"write LOW..HIGH with LOW <= HIGH and at most {MAX_CARDS} values, e.g. 1..30")
        return [None]
    if m is not None:
        low, high = int(m.group(1)), int(m.group(2))  # at most 80 characters: a number Python reads at once
        if high < low or high - low >= MAX_CARDS:
            b.err("E204", f"the range {low}..{high} gives {'no' if high < low else 'too many'} values", node.span,
                  f"write LOW..HIGH with LOW <= HIGH and at most {MAX_CARDS} values, e.g. 1..30")
            return [None]
        return list(range(low, high + 1))
    if not value.startswith("="):
        return [value]
    scope = Scope(dict(consts), set(), set(), set(), set(), set(), {}, {})
    expr = b.text.expr(node, Compiler(scope, b.diags), skip=1)
    if expr is None:
        return [None]
    try:
        got = expr.fn(_Ctx({}))
    except RuleError as exc:
        b.diags.append(exc.diagnostic())
        return [None]
    if not isinstance(got, list) or not got or len(got) > MAX_CARDS:
        b.err("E204", "the values of a 'for' name must be a list of 1 or more values", node.span,
              "e.g. value: 1..30, or value: \"=1..max_rank\"")
        return [None]
    return got


class _Copies:
    """How many copies of each card a group makes: a whole number, or an expression of parameters, options, tables
    and the group's 'for' names (e.g. '=court[kind].copies'), worked out for each card; reported once."""

    def __init__(self, b: Builder, node, comp: Compiler):
        self.b, self.node = b, node
        self.value = node.value if isinstance(node, YScalar) else None
        self.expr = None
        self.bad = False
        self.by_players = False  # the expression reads player_count
        if isinstance(self.value, str) and self.value.startswith("="):
            before = len(b.diags)
            self.expr = b.text.expr(node, comp, skip=1)
            self.bad = self.expr is None or len(b.diags) > before  # reported once: not worked out as well
            self.by_players = not self.bad and "player_count" in self.value

    def of(self, env: dict, players: int | None = None) -> int:
        if self.node is None or self.bad:
            return 1
        value = self.value
        if self.expr is not None:
            try:
                value = self.expr.fn(_Ctx({**env, "player_count": players} if self.by_players else env))
            except RuleError as exc:
                self.b.diags.append(exc.diagnostic())
                self.bad = True
                return 1
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_CARDS:
            self.b.err("E204", f"'count' must be a whole number from 0 to {MAX_CARDS}, got {value!r}", self.node.span)
            self.bad = True
            return 1
        return value


def _fill(template: str, env: dict, text: bool = False) -> str:
    """A card's name (as written: a name is an id players know) or its `text` with its {names} filled in; in a text,
    the noun after a value of 1 in the singular ('Worth {points} points' with points 1: 'Worth 1 point'), by the rule
    a step's label follows."""
    def one(m: re.Match) -> str:
        said = str(env.get(m.group(1), m.group(0)))
        return ONE + said if said == "1" and text else said

    return singular_after_one(_TEMPLATE.sub(one, template)) if text else _TEMPLATE.sub(one, template)


class _Ctx(LoadTimeContext):
    def __init__(self, env: dict):
        super().__init__(env)
