"""`rulecraft book`: the rules as one readable, printable HTML page, generated from the ruleset.

The page numbers the sequences in reading order and their steps 1, 1.a, 1.a.i as a rules
page does (the same numbers as on the flowcharts and the sheets), lists the components,
zones, tables, options and parameters, and shows every sequence's flowchart inline as SVG;
call boxes and references link to the sequence they name. The layout is a Jinja template
(templates/book.html.j2).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any, Optional

from rulecraft.dsl import ast as A
from rulecraft.model import ruleset as M
from rulecraft.model.kinds import kind_of

from rulecraft.tools.chart.dotlabels import safe_id
from rulecraft.tools.loading import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, fail, load_for, misnamed, write_bytes
from rulecraft.tools.chart.sheetplan import SheetPlan, callers_of, designer_label, plan_sheets, step_numbers
from rulecraft.tools.words import Words
from rulecraft.tools.words.core import capital, humanize, sequence_title
from rulecraft.tools.print.aidwords import players_table
from rulecraft.tools.print.aidwords import card_texts
from rulecraft.tools.print.setup.deck import counted_name
from rulecraft.tools.print.aidrules import result_rule, result_when
from rulecraft.tools.print.aidwords import VISIBILITY
from rulecraft.tools.words.text import dice_label


def seq_anchor(sid: str) -> str:
    return "seq-" + safe_id(sid)


@dataclass
class StepView:
    number: str
    anchor: str
    kind: str
    prose: str  # the designers' words, or a sentence made from the step's structure
    code: str  # the rule text, shown under the prose
    lead: str = ""  # without designers' words: a sentence around `inline` ("If", "For each p in") ...
    inline: str = ""  # ... and the rule text inside that sentence
    tail: str = ""
    links: list[tuple[str, str, str]] = field(default_factory=list)  # (href, title, "sheet N" or "")
    groups: list[tuple[str, list["StepView"]]] = field(default_factory=list)  # (heading, steps)


def describe(rs: M.Ruleset, step: M.Step, numbers: dict[str, str], plan: SheetPlan, words=None) -> StepView:
    """A step as the book shows it: with `words` (the players' view), its label or its words and the steps it
    holds, bookkeeping left out; without, the designer's view with the rule text under each step, as its kind
    fills it in (`StepKind.book`)."""
    if words is not None:
        return _in_words(rs, step, numbers, plan, words)
    label = Words(rs).label(designer_label(step))
    view = StepView(numbers.get(step.path, ""), "step-" + safe_id(step.path), type(step).__name__, label, "")
    view.links = [_seq_link(rs, plan, sid) for sid in _calls(step) if sid in rs.sequences]
    kind = kind_of(step)
    if kind is not None and kind.book is not None:
        kind.book(step, view, label, lambda steps: [describe(rs, s, numbers, plan) for s in steps])
    if view.code and _squash(view.code) == _squash(view.prose):
        view.code = ""
    return view


def _calls(step: M.Step) -> list[str]:
    """The sequences a step calls itself (a `call:` step; the call statements of a `do:` step), by its kind."""
    kind = kind_of(step)
    return [st.ast.sequence for st in (kind.statements(step) if kind is not None else ())
            if isinstance(st.ast, A.CallSeq)]


_GROUPS = {"then": "", "else": "otherwise", "do": "", "on_play": "as each card is played",
           "resolve": "then, top card first, each card resolves"}


def _in_words(rs: M.Ruleset, step: M.Step, numbers: dict[str, str], plan: SheetPlan, w) -> StepView:
    from rulecraft.tools.words.bookkeeping import hidden_step

    prose = w.label(designer_label(step)) or w.step(step, own_label=False)
    view = StepView(numbers.get(step.path, ""), "step-" + safe_id(step.path), type(step).__name__, prose, "")
    view.links = [_seq_link(rs, plan, sid) for sid in _calls(step) if sid in rs.sequences]
    bodies = dict(step.bodies)
    for name, body in step.bodies:
        shown = [describe(rs, s, numbers, plan, w) for s in body if not hidden_step(rs, s)]
        if shown:
            heading = "then" if name == "then" and bodies.get("else") else _GROUPS.get(name, "")
            view.groups.append((heading, shown))
    return view


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _seq_link(rs: M.Ruleset, plan: SheetPlan, sid: str) -> tuple[str, str, str]:
    sheet = plan.sheet_of.get(sid)
    return "#" + seq_anchor(sid), sequence_title(rs.sequences[sid]), f"sheet {sheet}" if sheet else ""


def paragraphs(text: str) -> list[str]:
    """YAML prose as paragraphs: a blank line starts a new one, single line breaks are spaces."""
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text or "") if p.strip()]


# ----------------------------------------------------------------------------- the page's data


def _cards(rs: M.Ruleset) -> list[dict]:
    """Cards grouped by class, classes in the order their first card comes; equal names counted."""
    first: dict[str, int] = {}
    for c in rs.cards:
        for cls in sorted(c.classes):
            first.setdefault(cls, c.index)
    groups = []
    for cls in sorted(first, key=lambda k: (first[k], k)):
        names: dict[str, list] = {}
        for c in rs.cards:
            if cls in c.classes:
                names.setdefault(c.name, []).append(c)
        groups.append({"cls": cls, "anchor": "class-" + safe_id(cls), "count": sum(map(len, names.values())),
                       "names": [counted_name(rs, n, cs) for n, cs in names.items()]})
    return groups


def _attrs(rs: M.Ruleset) -> list[str]:
    """The attributes a card has, by name; a counter a card group only numbers its copies by ('n') is no rule."""
    from rulecraft.tools.words.locals import abbreviation

    seen: dict[str, None] = {}
    for c in rs.cards:
        for k in c.attrs:
            if not abbreviation(k):
                seen.setdefault(k, None)
    return list(seen)


def _per(z: M.ZoneDef) -> str:
    if z.per is None:
        return "one, shared"
    if z.per == "player":
        return "one per player"
    if z.per == "dynamic":
        return "made during play"
    return "one each for " + ", ".join(map(str, z.per))


def _value(v: Any) -> str:
    if hasattr(v, "text"):
        return v.text
    from rulecraft.tools.words.core import value_words

    return value_words(v)  # lists as words ('duke', not "['duke']"), yes/no, none


def context(rs: M.Ruleset, graph, charts: dict[str, str], plan: Optional[SheetPlan] = None,
            detail: str = "players") -> dict:
    """Everything the template shows, as plain data (charts: sequence id -> inline SVG text)."""
    from rulecraft.tools.print.bookfront import front
    from rulecraft.tools.words import Words
    from rulecraft.tools.words.bookkeeping import hidden_step

    plan = plan or plan_sheets(rs, graph)
    called_by = callers_of(graph)
    from rulecraft.tools.words.labels import plain_prose

    words = Words(rs, detail="players") if detail != "full" else None
    skip = (lambda s: hidden_step(rs, s)) if words is not None else None
    prose = plain_prose if words is not None else (lambda t: t)  # players' pages: no files, no code
    cite = (lambda t: "") if words is not None else (lambda t: t)
    value = words.value if words is not None else _value
    tw = words or Words(rs)
    sequences = []
    for i, sid in enumerate(plan.order, 1):
        seq = rs.sequences[sid]
        numbers = step_numbers(seq, skip)
        callers = [(c, "#" + seq_anchor(c), sequence_title(rs.sequences[c])) for c in called_by.get(sid, ())]
        sequences.append({
            "id": sid, "anchor": seq_anchor(sid), "number": i, "title": sequence_title(seq), "kind": seq.kind,
            "titled": bool(seq.title) and seq.title != sid,  # 'Play starts with Game' names nothing: said when titled
            "source": cite(seq.source), "doc": prose(seq.doc), "params": list(seq.params), "sheet": plan.sheet_of.get(sid),
            "steps": [describe(rs, s, numbers, plan, words) for s in seq.steps if skip is None or not skip(s)],
            "svg": charts.get(sid, ""),
            "callers": callers,
            "triggers": [(tw.label(t.label) if t.label else tw.stmt(t), "#trigger-" + safe_id(t.id)) for t in rs.triggers
                         if t.run == sid],
        })
    tables = []
    for t in rs.tables.values():
        if words is None:
            tables.append({"id": t.id, "anchor": "table-" + safe_id(t.id), "title": t.title or t.id, "doc": prose(t.doc),
                           "columns": list(t.columns), "rows": [(value(k), [value(t.rows[k].get(c)) for c in t.columns])
                                                                for k in t.keys],
                           "cycle": list(t.cycle), "permutation": list(t.permutation)})
            continue
        if not (t.title or "title" in t.columns or "name" in t.columns):
            continue  # a table players never read by name is the rules' own bookkeeping: the sheets use it
        head, rows = players_table(t, words)
        tables.append({"id": t.id, "anchor": "table-" + safe_id(t.id), "title": t.title or capital(humanize(t.id)),
                       "doc": prose(t.doc), "columns": head[1:], "rows": [(r[0], r[1:]) for r in rows],
                       "cycle": list(t.cycle), "permutation": list(t.permutation)})
    events = [{"id": e.id, "fields": list(e.fields), "doc": e.doc} for e in rs.events.values()]
    builtin = [{"id": k, "fields": list(v), "doc": "built in"} for k, v in M.BUILTIN_EVENTS.items()
               if k not in rs.events]
    return {
        "rs": rs,
        "sequences": sequences,
        "cards": _cards(rs), "card_texts": card_texts(rs, shared=True),
        "card_attrs": [a.replace("_", " ") for a in _attrs(rs)] if detail == "full" else [],  # ids: the designers' view
        "dice": _dice(rs, words),
        "zones": [{"id": z.id, "anchor": "zone-" + safe_id(z.id), "title": z.title or z.id, "per": _per(z),
                   "visibility": VISIBILITY.get(z.visibility, z.visibility), "doc": prose(z.doc)} for z in rs.zones.values()],
        "tables": tables,
        "events": events + builtin,
        "triggers": [{"id": t.id, "anchor": "trigger-" + safe_id(t.id),
                      "text": tw.label(t.label) if t.label else tw.stmt(t),
                      "on": t.on, "when": t.when.text if t.when else "",
                      "timing": "at once" if t.timing == "now" else f"after the {t.after_kind or 'step'}",
                      "run": _seq_link(rs, plan, t.run), "source": cite(t.source)} for t in rs.triggers],
        "options": [{"id": o.id, "name": o.title or capital(humanize(o.id)), "anchor": "option-" + safe_id(o.id),
                     "default": value(o.default), "value": value(o.value), "choices": [value(c) for c in o.choices],
                     "doc": prose(o.doc), "source": cite(o.source)} for o in rs.options.values()],
        "parameters": [{"id": p.id, "name": p.title or capital(humanize(p.id)), "anchor": "param-" + safe_id(p.id),
                        "default": value(p.default), "value": value(p.value), "range": _range(p), "doc": prose(p.doc),
                        "source": cite(p.source)} for p in rs.parameters.values()],
        "modifiers": [{"id": m.id, "doc": m.doc} for m in rs.modifiers.values()],
        "scoring": rs.scoring,
        "start": "#" + seq_anchor(rs.start),
        "front": front(rs, plan.order, seq_anchor),
        "detail": detail,
        "notes": [x for x in (prose(p) for p in paragraphs(rs.notes)) if x],
        "source_file": rs.file.replace("\\", "/").rsplit("/", 1)[-1],
    }


def _dice(rs: M.Ruleset, words: Optional[Words]) -> list[dict]:
    """The dice: for players as the aid names them ('Two six-sided dice (2d6)', a result by its title and what
    the roll then does); for designers by id, with each result's condition as written."""
    if words is not None:
        def then(r: M.DiceResult) -> str:
            said = {"success": "the roll succeeds", "failure": "the roll fails"}.get(r.outcome or "", "")
            again = "the dice may be rolled again" if r.reroll else ""
            return capital(" and ".join(x for x in (said, again) if x) or result_rule(rs, r)
                           or "it has no effect of its own")
        return [{"name": dice_label(d.count, d.sides, d.visibility), "doc": d.doc,
                 "results": [{"name": capital(r.shown()), "when": result_when(rs, r), "effect": then(r)} for r in d.results]}
                for d in rs.dice.values()]
    return [{"name": f"{d.id.replace('_', ' ')} ({d.count}d{d.sides})", "doc": d.doc,
             "results": [{"name": r.name, "when": r.when.text,
                          "effect": ", ".join(x for x in (r.outcome, "may re-roll" if r.reroll else None) if x)}
                         for r in d.results]} for d in rs.dice.values()]


def _range(p: M.ParamDef) -> str:
    if p.min is None and p.max is None:
        return ""
    return f"{_value(p.min) if p.min is not None else '…'} to {_value(p.max) if p.max is not None else '…'}"


# ----------------------------------------------------------------------------- charts and the page


_SVG_HEAD = re.compile(r"^.*?(?=<svg\b)", re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)


def inline_svg(svg: str) -> str:
    """Graphviz's SVG made fit to sit inside HTML: no XML prologue or comments, scaled by CSS."""
    svg = _COMMENT.sub("", _SVG_HEAD.sub("", svg, count=1))
    svg = re.sub(r'<svg width="([\d.]+)pt" height="[\d.]+pt"', r'<svg class="chart" style="width:\1pt"', svg, count=1)
    return svg.strip()


def render_html(rs: M.Ruleset, graph, charts: dict[str, str], plan: Optional[SheetPlan] = None,
                detail: str = "players") -> str:
    """The book as HTML text (pure: the charts come in already drawn)."""
    if detail != "full" and plan is None:
        from rulecraft.tools.words.bookkeeping import players_graph

        graph = players_graph(rs, graph)
    return _template().render(**context(rs, graph, charts, plan, detail))


@functools.lru_cache(maxsize=None)
def _template():
    """The book's Jinja template, compiled once a process."""
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader("rulecraft.tools.print", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    return env.get_template("book.html.j2")


def chart_sources(rs: M.Ruleset, graph, plan: SheetPlan, detail: str = "players") -> dict[str, str]:
    """The DOT of every sequence's chart for the book: call boxes link to the sequence on this page."""
    from rulecraft.tools.chart.flowchart import ChartOptions, chart_dot

    def link(sid: str) -> Optional[str]:
        return "#" + seq_anchor(sid) if sid in rs.sequences else None

    return {sid: chart_dot(rs, graph, sid, ChartOptions(detail=detail, sheet_of=plan.sheet_of, link=link,
                                                       id_prefix=f"c-{sid}-",
                                                       same_sheet=frozenset(plan.sheet(plan.sheet_of[sid]).sequences)))
            for sid in plan.order}


def build_book(rs: M.Ruleset, graph, detail: str = "players") -> str:
    from rulecraft.tools.chart.dotrun import run_many
    from rulecraft.tools.words.bookkeeping import players_graph

    if detail != "full":
        graph = players_graph(rs, graph)  # the same sheets, numbers and boxes as `rulecraft sheets`
    plan = plan_sheets(rs, graph)
    sources = chart_sources(rs, graph, plan, detail)
    svgs = run_many([(src, "svg") for src in sources.values()])
    charts = {sid: inline_svg(svg.decode("utf-8")) for sid, svg in zip(sources, svgs)}
    return render_html(rs, graph, charts, plan, detail)


def run(args) -> int:
    from rulecraft.tools.chart.dotrun import DotError

    verb = "book"
    if misnamed(args.output, (".pdf", ".html", ".htm")):
        return fail(verb, f"the book is a page or a PDF: name the output FILE.html or FILE.pdf, not {args.output}",
                    EXIT_USAGE)
    pdf = str(args.output).lower().endswith(".pdf")
    if pdf:
        from rulecraft.tools.print.htmlpdf import HINT, find_chromium

        if find_chromium() is None:
            return fail(verb, HINT + "; or write the page with -o FILE.html and print it from a browser", EXIT_USAGE)
    loaded = load_for(verb, args.ruleset)
    if loaded is None:
        return EXIT_ERRORS
    try:
        html = build_book(loaded.ruleset, loaded.graph, getattr(args, "detail", "players") or "players")
    except DotError as exc:
        return fail(verb, str(exc), EXIT_ERRORS)
    data = html  # text: `-o -` prints it
    if pdf:
        from rulecraft.tools.print.htmlpdf import PrintError, html_to_pdf

        try:
            data = html_to_pdf(html, timeout=300)
        except PrintError as exc:
            return fail(verb, str(exc), EXIT_ERRORS)
    code = write_bytes(verb, args.output, data)
    return EXIT_OK if code is None else code
