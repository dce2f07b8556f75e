"""`rulecraft aid`: a one- or two-page player aid, printed from HTML by headless Chromium.

What a player needs at the table and nothing else: how to win, the round and turn as a
compact flow (a line per phase), the key numbers, the reference tables and the dice. Every
line is in words (`rulecraft.tools.words`), never rule text. A ruleset may choose what goes on
it (`aid:`: flow, tables, numbers, win, notes); the defaults are worked out from the ruleset.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from rulecraft.dsl import ast as A
from rulecraft.model import ruleset as M
from rulecraft.model.kinds import kind_of, own_statements, yes_no

from rulecraft.tools.loading import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, fail, load_for, misnamed, write_bytes
from rulecraft.tools.chart.cases import one_case
from rulecraft.tools.chart.sheetplan import calls_of, designer_label
from rulecraft.tools.words.bookkeeping import hidden_step
from rulecraft.tools.words.players import only_among
from rulecraft.tools.words.core import Words, capital, humanize, sequence_title
from rulecraft.tools.words.text import runs
from rulecraft.tools.print.aidwords import card_texts, only_otherwise, table_views, words_box
from rulecraft.tools.print.flow.blocks import FLOW_KINDS, calls as _calls, gets as _gets
from rulecraft.tools.print.flow.cuts import bounded, cut
from rulecraft.tools.words.bookkeeping import what_it_does
from rulecraft.tools.print.flow.prices import priced
from rulecraft.tools.print.setup.starts import said_at_start
from rulecraft.tools.print.setup.steps import first_player, setup_lines, setup_sequences
from rulecraft.tools.print.aidrules import (ITEM_CHARS, clip as _clip, decision_lines, dice_views, lines_of as _lines,
                                            lower as _lower, puts_out, sentence as _sentence, win_lines)

MAX_PAGES = 2
AID_MIN_PT = 9.0
SPILL_CHARS = 1400  # a second page with no more text than this is tried again more compactly, to fit one page


@dataclass
class AidView:
    title: str
    players: str
    paper: str
    win: list[str] = field(default_factory=list)
    explain: list[tuple[str, str]] = field(default_factory=list)  # (function in words, what it computes)
    flow: list[tuple[int, str, list]] = field(default_factory=list)  # (depth, sequence title, its steps in words)
    numbers: list[tuple[str, str]] = field(default_factory=list)
    tables: list[dict] = field(default_factory=list)
    dice: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # the designer's own summary prose (`aid:` turn, decisions, scoring, powers, key), labels filled
    turn: list[str] = field(default_factory=list)
    decisions: list[tuple[str, str]] = field(default_factory=list)
    scoring: list[str] = field(default_factory=list)
    powers: list[tuple[str, str]] = field(default_factory=list)
    key: list[tuple[str, str]] = field(default_factory=list)
    setup: list[str] = field(default_factory=list)  # where things start and how the table is set up
    words: list[tuple[str, str]] = field(default_factory=list)  # every place and term the aid uses, defined
    turn_heading: str = "Your turn, in order"
    actions: set = field(default_factory=set)  # titles of the short actions shown in the order of play (may go)
    spare: list = field(default_factory=list)  # Words entries to leave out first over two pages, the last first


def _pairs(w: Words, data) -> list[tuple[str, str]]:
    """A mapping (or a list of [name, text] pairs) of the `aid:` section as (name, sentence) pairs."""
    items = data.items() if isinstance(data, dict) else (tuple(x) for x in (data or []) if len(x) == 2)
    return [(w.label(str(k)), _sentence(w.label(str(v)))) for k, v in items if v]  # '' drops a parent's entry


ITEMS = 8  # lines per sequence at most
ROOM_ITEMS = 12  # ... or this many, uncut, in an order of play short enough in all (FLOW_ROOM)
SEQUENCE_CHARS, LONG_ITEM_CHARS = 1400, 700  # a sequence's lines this short in all let one run to this length,
FLOW_ROOM = 1600  # in an order of play this short in all (cut as usual): an aid with room on its page
ACTION_LINES, ACTION_CHARS = 5, 400  # a called action this short is shown in the order of play too
ANSWER_CHARS = 90  # what a question's answer leads to, said inside a longer line only when it is this short
DEPTH = 3  # a step's blocks are said this many levels down (a payment inside an 'if' inside a loop)


def _said(w: Words, s: M.Step, depth: int = 0) -> str:
    """One step as a line of the aid: its label, or its words with what it holds after them ("Keep rolling: roll
    2d6; if the roll is a bust, pay a chip, then the turn ends"); blocks nested deeper than DEPTH are left to the
    sheets. Inside a block a step's own clauses join with 'and', so '; ' only ever parts the line's top clauses."""
    label = w.label(designer_label(s))
    text = label.rstrip(".") if label else w.step(s, own_label=False).rstrip(".")
    kind = kind_of(s)
    decides, d = (kind.decides, next(iter(kind.decisions(s)), None)) if kind is not None else ("", None)
    if depth and not label and decides == "choice" and d is not None and d.prompt is not None \
            and d.player is not None:  # inside a sentence a question is quoted: 'the player is asked “Which crate?”'
        text = f"{w.expr(d.player)} is asked “{w.addressed(d.player, d.prompt)}”" + only_among(w, d)
    if depth:  # a label's clause after a condition stays apart ('follow suit if you can; the highest ...': no 'and')
        text = re.sub("; ", lambda m: " — " if label and re.search(r"\b(?:if|unless|when)\b[^;]*$", text[:m.start()])
                      else ", " if re.match(r"(?:else|otherwise)\b", text[m.end():]) else " and ", text)
    if kind is not None and kind.call and not label and depth < DEPTH:
        text += _called(w, s, depth)
    asks = yes_no(s) if "?" in label and depth <= DEPTH else None
    if asks is not None:  # a question label ('Is only one player still in?') keeps what each answer leads to
        said, answered = text, not label.endswith("?")  # ('A Ladder? Clear the pile': its yes is said; its no?)
        for lead, body in (("Then", () if answered else asks[1]), ("Otherwise", asks[2])):
            inner = [_lower(x) for x in (_said(w, b, depth + 1) for b in body if not hidden_step(w.rs, b)) if x]
            answer = ", then ".join(runs(inner))
            if answer and (not depth or len(answer) <= ANSWER_CHARS):  # deeper in a line, a short answer only
                said += ("; " + lead.lower() if answered else " If not" if lead == "Otherwise" else " " + lead) \
                    + (" " if lead == "Then" else ", ") + answer  # ('Did it boil over? If not, score ...')
                answered = True
        return said
    if decides == "mechanic" and not label and depth < DEPTH:  # a mechanic says itself, then what its `do:` does
        inner = [_lower(x) for x in (_said(w, b, depth + 1) for b in dict(s.bodies).get("do", ())
                                     if not hidden_step(w.rs, b)) if x]
        return text + (": " + _then(inner) if inner else "")
    if label and decides == "mechanic" and depth < DEPTH:  # a designer's words for it, then what its `do:` does
        inner = [_lower(x) for x in (_said(w, b, depth + 1) for b in dict(s.bodies).get("do", ())
                                     if not hidden_step(w.rs, b)) if x]
        return text + (". " + capital(_then(inner)) if inner else "")
    if label and decides == "choice" and depth < DEPTH \
            and (any("?" in designer_label(b) for b in dict(s.bodies).get("do", ())) or _gets(w, d, s, label)):
        inner = [_lower(x) for x in (_said(w, b, depth + 1) for b in dict(s.bodies)["do"]  # 'Buy or defeat ...': what a
                                     if not hidden_step(w.rs, b)) if x]  # pick leads to, by the designer's question (honour-
        return text + (": " + _then(inner) if inner else "")  # road's monster and bought card: a first table asked)
    if label and depth == 0 and (out := puts_out(s)) is not None:  # 'how do I lose?': a block's rule that puts
        return f"{text}: {_lower(_said(w, out))}"  # players out, by its question ('Can they drink? ... out')
    if label and (does := what_it_does(w, s, label)):  # 'Step onto the ice: draw a card from the floe ...'
        return f"{text}: {does}"
    if label and not depth and not decides and asks is None and (loop := dict(s.bodies).get("do")) and any(
            _calls(w, b) for b in loop) and any(designer_label(b) and not _calls(w, b) for b in loop):  # 'Rounds are
        inner = [_lower(x) for x in (_said(w, b, 1) for b in loop if not hidden_step(w.rs, b)) if x]
        return text + ": " + _then(inner)  # played ...: play Buying, then every mill grinds' (mill-row: when?)
    if label or not s.bodies or decides == "mechanic":
        return text
    if depth >= DEPTH:
        return ""
    if depth >= 2 and (case := one_case(s)) is not None:
        inner = _said(w, case, depth + 1)  # inside a clause, a side condition: 'pay a chip (if the player has any)'
        return f"{_lower(inner)} ({_lower(text)})" if inner else ""
    parts = []
    for name, body in s.bodies:
        inner = [_lower(x) for x in (_said(w, b, depth + 1) for b in body if not hidden_step(w.rs, b)) if x]
        if inner:
            parts.append(("otherwise " if name == "else" else "") + (_then(inner) if depth else "; ".join(inner)))
    if not parts:  # a block too deep to say here: its heading alone ('for each colour') would say nothing
        return text + (" (see the sheets)" if any(not hidden_step(w.rs, b) for _n, body in s.bodies for b in body) else "")
    text, parts = only_otherwise(w, s, text, parts)
    if len(parts) == 1 and text.startswith("For each ") and (text[4:].lower() in parts[0] or isinstance(
            s, M.ForEachStep) and isinstance(getattr(s.iterable, "ast", None), A.Range) and parts[0].startswith("each ")):
        return parts[0] if depth else capital(parts[0])  # 'deal 6 cards to each player' says the loop already (and
        # 'each player in the ring is told ...' a loop of numbers 0 to the players less 1: quiet-contract, read cold)
    said = text + (", " if depth else ": ") + ("; " if not depth else ", ").join(parts)
    return re.sub(r"\?[;,] (\w)", lambda m: "? " + m.group(1).upper(), said)  # a question ends its sentence


def _called(w: Words, s: M.Step, depth: int) -> str:
    """What a called sequence the order of play shows nowhere does, said in place when it is short ('a keep falls
    (have their walls fallen? Then they are out of the game)'); '' otherwise."""
    rs = w.rs
    seqs = [rs.sequences.get(getattr(st.ast, "sequence", None)) for st in own_statements(s)]
    if len(seqs) != 1 or seqs[0] is None or seqs[0].kind in FLOW_KINDS or seqs[0].id in setup_sequences(rs, [seqs[0].id]):
        return ""
    inner = [_lower(x) for x in (_said(w, b, depth + 1) for b in seqs[0].steps if not hidden_step(rs, b)) if x]
    said = _then(inner)
    return f" ({said})" if said and len(said) <= ANSWER_CHARS else ""


def _then(clauses: list[str]) -> str:
    """Clauses one after another ('roll, then pay'); a question starts a sentence of its own ('play a turn. Is only
    one player still in? Then ...'), as a reader asks it."""
    out = ""
    for x in runs(clauses):
        asking = re.match(r"[^.;,(]*\?", x) is not None
        out += (". " + capital(x) if asking else ", then " + x) if out else x
    return out


def _ends_game(s: M.Step) -> bool:
    stmts = [st.ast for st in own_statements(s)]
    return bool(stmts) and isinstance(stmts[-1], A.End) and stmts[-1].kind == "game" and len(stmts) == 1


def _as_played(w: Words, steps) -> list:
    """Steps as the game plays them: a condition the house rules decide gives way to the branch it takes, and a
    call of a setup sequence goes (the aid's Set-up says it)."""
    setup = set(setup_sequences(w.rs, list(w.rs.sequences)))
    out = []
    for s in steps:
        kind, asks = kind_of(s), yes_no(s)
        cond = asks[0] if asks is not None else None
        if cond is not None and w.is_constant(cond.ast) \
                and any(isinstance(x, A.Name) and x.id in w.rs.options for x in cond.ast.walk()):
            out += _as_played(w, asks[1] if w.constant(cond.ast) else asks[2])
        elif not (kind is not None and kind.call and all(st.ast.sequence in setup for st in kind.statements(s))):
            out.append(s)
    return out


def _summary(w: Words, seq: M.SequenceDef, shown: set, items: int | None = ITEMS, room: bool = False) -> list[str]:
    """What a sequence does, a line a step, in play order: labels where the designer wrote them, else words. Past
    `items` lines (None: all) a line says how many more steps the sheets give: nothing is cut silently, and never a
    rule that scores, puts a player out or ends the game (`flow.cuts`)."""
    steps = [s for s in _as_played(w, seq.steps) if not hidden_step(w.rs, s) and not said_at_start(w.rs, w, s)]
    if seq.id == w.rs.start and steps and _ends_game(steps[-1]):
        steps = steps[:-1]  # 'the game ends' after the last step says nothing
    by_line: dict[str, M.Step] = {}
    for s in steps:
        by_line.setdefault(_said(w, s), s)
    said = [x for x in by_line if x]
    # a long line keeps its first clauses only, unless the aid has `room` and the sequence's other lines leave it
    # room for all ('Do this 2 times: ...' with what each of four answers leads to, in a turn of a few short lines)
    out = [(_clip(x, max(ITEM_CHARS, min(LONG_ITEM_CHARS, SEQUENCE_CHARS - sum(map(len, said)) + len(x))) if room
                  else ITEM_CHARS), by_line[x]) for x in said]
    return cut(w.rs, out, items) if items is not None else [x for x, _s in out]


def flow_lines(rs: M.Ruleset, w: Words, items: int | None = ITEMS, actions: bool = True) -> list[tuple[int, str, str]]:
    chosen = rs.aid.get("flow")
    if chosen:
        order = [(0, sid) for sid in chosen if sid in rs.sequences]
    else:
        order, seen = [], set()

        def visit(sid: str, depth: int) -> None:
            if sid in seen or sid not in rs.sequences:
                return
            seen.add(sid)
            order.append((depth, sid))
            for callee in calls_of(rs.sequences[sid].steps):
                if callee in rs.sequences and (rs.sequences[callee].kind in FLOW_KINDS
                                               or actions and _short_action(w, rs, callee)):
                    visit(callee, depth + 1)

        visit(rs.start, 0)
        setup = set(setup_sequences(rs, [sid for _d, sid in order]))
        order = [(d, sid) for d, sid in order if sid not in setup]
    shown = {sid for _d, sid in order}
    flow = [(d, sequence_title(rs.sequences[sid]), _summary(w, rs.sequences[sid], shown, items)) for d, sid in order]
    # a short order of play says its long lines whole; not in the aid printed again without the actions: no room
    if actions and sum(len(x) for _d, _t, lines in flow for x in lines) <= FLOW_ROOM:
        whole = [(d, t, _summary(w, rs.sequences[sid], shown, None, room=True)) for (d, t, _l), (_d, sid)
                 in zip(flow, order)]  # (uncut where it still fits: quiet-trump's deal was cut from a half-empty page)
        flow = whole if sum(len(x) for _d, _t, lines in whole for x in lines) <= FLOW_ROOM \
            and all(len(lines) <= ROOM_ITEMS for _d, _t, lines in whole) else \
            [(d, t, _summary(w, rs.sequences[sid], shown, items, room=True)) for (d, t, _l), (_d, sid) in zip(flow, order)]
    return flow


def _short_action(w: Words, rs: M.Ruleset, sid: str) -> bool:
    """An action the order of play calls ('play the action'), short enough to be said in it: what each action does."""
    seq = rs.sequences[sid]
    if seq.kind != "action":
        return False
    lines = _summary(w, seq, set(), None)
    return len(lines) <= ACTION_LINES and sum(map(len, lines)) <= ACTION_CHARS


def aid_view(rs: M.Ruleset, paper: str = "a4", actions: bool = True) -> AidView:
    w = Words(rs, detail="players")
    count = str(rs.players.min) if rs.players.min == rs.players.max else f"{rs.players.min}–{rs.players.max}"
    view = AidView(rs.title, f"{count} players", paper)
    view.win, view.explain = win_lines(rs, w)
    view.flow = flow_lines(rs, w, actions=actions)
    view.actions = {t for _d, t, _l in view.flow} & {sequence_title(q) for q in rs.sequences.values() if q.kind == "action"}
    ids = rs.aid.get("numbers")
    params = [rs.parameters[k] for k in ids if k in rs.parameters] if ids is not None else list(rs.parameters.values())
    view.numbers = [(_sentence(p.doc or capital(humanize(p.id))).rstrip("."), w.value(p.value)) for p in params]
    view.tables = table_views(rs, w)
    # plain dice: the order of play says 'roll 5d6'; dice whose faces not everyone sees are listed to say so
    view.dice = [d for d, dd in zip(dice_views(rs, w), rs.dice.values()) if d["results"] or d["doc"] or dd.visibility != "open"]
    view.notes = _lines(w, rs.aid.get("notes", []))
    view.turn = _lines(w, rs.aid.get("turn"))
    view.decisions = _pairs(w, rs.aid["decisions"]) if "decisions" in rs.aid else decision_lines(rs, w, say=lambda s: _said(w, s, 1), whole={
        t: " ".join(lines) for _d, t, lines in view.flow if not any(x.startswith("…") or x.endswith("see the sheets")
                                                                    for x in lines)})
    view.scoring = _lines(w, rs.aid.get("scoring"))
    view.powers = _pairs(w, rs.aid.get("powers")) or priced(rs, card_texts(rs))  # ('Cost 4. +2 Cards, ...')
    view.key = _pairs(w, rs.aid.get("key"))
    decided = " ".join(text for _name, text in view.decisions)
    # dice whose every named result the designer's "How it is decided" already says: no second table of them
    view.dice = [d for d in view.dice if not ("decisions" in rs.aid and d["results"]
                                              and all(r[0].rstrip("!") in decided for r in d["results"]))]
    if view.turn:  # the designer's turn replaces the outline worked out from the sequences
        view.flow = []
    if view.scoring:
        view.explain = []
    view.setup = [_sentence(x) for x in setup_lines(rs, w, list(rs.sequences), say=lambda s: _clip(_said(w, s)))]
    view.turn_heading = "A round, in order" if view.turn and any(
        q.kind == "round" for q in rs.sequences.values()) else "Your turn, in order"
    bounded(view)
    view.words, view.spare = words_box(rs, w, _texts(view))
    view.setup += first_player(rs, "\n".join(_texts(view) + [d for _t, d in view.words]), view.setup)
    return view


def _texts(view: AidView) -> list[str]:
    """Every sentence the aid prints, for the Words box to find the terms in."""
    out = view.win + view.turn + view.scoring + view.notes + view.setup
    out += [x for pair in view.decisions + view.powers + view.key + view.explain + view.numbers for x in pair]
    out += [line for _d, title, lines in view.flow for line in [title, *lines]]
    for t in view.tables:
        out += [t["doc"] or "", *t["head"], *(c for row in t["rows"] for c in row)]
    for d in view.dice:
        out += [d["doc"] or "", *(x for result in d["results"] for x in result)]
    return out


def aid_html(view: AidView, compact: int = 0) -> str:
    return _template().render(v=view, compact=compact)


@functools.lru_cache(maxsize=None)
def _template():
    """The aid's Jinja template, compiled once a process (the aid is printed up to three times)."""
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(loader=PackageLoader("rulecraft.tools.print", "templates"), autoescape=select_autoescape(["j2"]))
    return env.get_template("aid.html.j2")


def build_aid(rs: M.Ruleset, paper: str = "a4", printer=None) -> tuple[bytes, int]:
    """The aid's PDF and its page count: printed again more compactly (never below 9 pt) while over two pages,
    by one browser (`printer`, an open `htmlpdf.Printer` to print with, else one started for this aid); still over,
    without the short actions the order of play calls (the sheets show them)."""
    from contextlib import nullcontext

    from rulecraft.tools.print.htmlpdf import Printer

    view = aid_view(rs, paper)
    with nullcontext(printer) if printer is not None else Printer() as browser:
        pdf, pages = _printed(view, browser)
        if pages > MAX_PAGES and view.actions:
            pdf, pages = _printed(aid_view(rs, paper, actions=False), browser)
    return pdf, pages


def _printed(view: AidView, browser) -> tuple[bytes, int]:
    """One view printed as compactly as it needs: a second page of a few lines is tried again to fit one sheet, and
    over two pages at the tightest layout the Words box's spare entries leave it (`words_box`)."""
    from io import BytesIO

    from pypdf import PdfReader

    fits = None  # the first print that fits two pages
    for compact in range(3):
        pdf = browser.print(aid_html(view, compact))
        reader = PdfReader(BytesIO(pdf))
        pages = len(reader.pages)
        if pages == 1 or (pages == MAX_PAGES and not _a_few_lines(reader.pages[1])):
            break
        if pages == MAX_PAGES:  # a second page of a few lines: printed more compactly it may be one sheet
            fits = fits or (pdf, pages)
    else:
        pdf, pages = fits or (pdf, pages)
    kinds = list(view.spare)
    while pages > MAX_PAGES and kinds:
        view.words.remove(kinds.pop())
        pdf = browser.print(aid_html(view, 2))
        pages = len(PdfReader(BytesIO(pdf)).pages)
    return pdf, pages


def _a_few_lines(page) -> bool:
    """Whether a page of the aid holds only a few lines (what ran over from the page before)."""
    return len(page.extract_text() or "") <= SPILL_CHARS


def run(args) -> int:
    from rulecraft.tools.print.htmlpdf import PrintError, find_chromium

    verb = "aid"
    if misnamed(args.output, (".pdf",)):
        return fail(verb, f"the aid is a PDF: name the output FILE.pdf, not {args.output}", EXIT_USAGE)
    if find_chromium() is None:
        from rulecraft.tools.print.htmlpdf import HINT

        return fail(verb, HINT, EXIT_USAGE)
    loaded = load_for(verb, args.ruleset)
    if loaded is None:
        return EXIT_ERRORS
    try:
        pdf, pages = build_aid(loaded.ruleset, args.paper or "a4")
    except PrintError as exc:
        return fail(verb, str(exc), EXIT_ERRORS)
    if pages > MAX_PAGES:
        import sys

        print(f"rulecraft aid: warning: the aid takes {pages} pages; name fewer tables or numbers under 'aid:'",
              file=sys.stderr)
    code = write_bytes(verb, args.output, pdf)
    return EXIT_OK if code is None else code
