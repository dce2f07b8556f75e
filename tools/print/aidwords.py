"""The aid's reference tables, its Words box and its cards: the tables as players read them, what each place and term
the aid uses means, from the ruleset's own titles and docs (a zone's `doc:`, a sequence's, a titled variable's), and
what the cards are called and do (also printed by the book)."""

from __future__ import annotations

import re

from rulecraft.dsl import ast as A
from rulecraft.model import ruleset as M
from rulecraft.model.kinds import kind_of, own_statements, yes_no

from rulecraft.tools.chart.sheetplan import designer_label
from rulecraft.tools.print.setup.deck import KIND_OF_CARD, class_terms
from rulecraft.tools.print.setup.starts import set_before_play, zone_name as _zone_name
from rulecraft.tools.print.flow.names import named_terms, place_terms
from rulecraft.tools.print.flow.refill import place_steps
from rulecraft.tools.words import Words
from rulecraft.tools.words.core import capital, humanize
from rulecraft.tools.words.players import negate

VISIBILITY = {
    "hidden": "face down, seen by nobody", "owner": "seen by its owner only", "open": "face up, open to all",
    "count": "face down; anyone may count the cards", "top": "only the top card is seen",
    "contents": "face down; anyone may know which cards it holds, nobody their order",
    "owner_contents": "face down; its owner knows which cards it holds, nobody their order"}
TABLE_COLUMNS = 5  # a table with more columns is left off the aid unless the designer chose it
WORDS = 24  # entries of the Words box at most (the aid is two pages)


def _forms(title: str) -> list[str]:
    """The ways a text names a term: 'Dragon's Hoard' also as 'Hoard', 'Black Markets' also as 'Black Market'."""
    title = re.sub(r"^the ", "", title.strip())
    forms = [title, title[:-1] if title.endswith("s") and len(title) > 4 else ""]
    last = title.split()[-1] if " " in title else ""
    if last[:1].isupper() and len(last) >= 4 and "'" not in last:
        forms += [last, last[:-1] if last.endswith("s") else ""]
    return [f for f in dict.fromkeys(forms) if f]


def zone_doc(w: Words, z: M.ZoneDef) -> str:
    """What a place is: its `doc:`, else how many there are and who sees them; and for a pile that refills (`refill:`),
    what happens when it runs out."""
    said = _place_doc(w, z)
    source = w.rs.zones.get(z.refill) if z.refill else None
    if source is not None:
        whose = "your" if z.per == "player" and source.per == "player" else "the"
        said = said.rstrip() + ("" if said.rstrip().endswith((".", "!", "?")) else ".") \
            + f" When it runs out, shuffle {whose} {_zone_name(source)} to make a new one."
    return said + (("" if said.rstrip().endswith((".", "!", "?")) else ".") + more if (more := place_steps(w, z)) else "")


def _place_doc(w: Words, z: M.ZoneDef) -> str:
    if z.doc:
        return z.doc
    per = {None: "a shared place for cards", "player": "each player has their own",
           "dynamic": "places for cards made during play"}.get(
        z.per if not isinstance(z.per, tuple) else "", None) or "one for each of " + w.value(
            [w.rs.key_titles.get(k, k) for k in z.per])  # each key by the title players know it by
    return capital(f"{per}, {VISIBILITY.get(z.visibility, z.visibility)}.")


def terms(rs: M.Ruleset, w: Words) -> list[tuple[str, str]]:
    """Every term a player meets, with what it means: the designer's (`aid: words:`) first, then the titled
    places, sequences and values that have a doc (a place always has one: how many, who sees it)."""
    out: list[tuple[str, str]] = [(w.label(str(k)), w.label(str(v))) for k, v in (rs.aid.get("words") or {}).items()]
    for z in rs.zones.values():
        if z.title and not z.title.endswith("(setup)"):
            out.append((_zone_name(z), zone_doc(w, z)))
    for seq in rs.sequences.values():
        if seq.doc and seq.title:
            out.append((seq.title, w.label(seq.doc)))
    for v in list(rs.variables.values()) + list(rs.player_variables.values()):
        if v.title and v.doc:
            out.append((capital(v.title.removeprefix("the ")), w.label(v.doc)))
    for f, doc in rs.function_docs.items():  # 'the player's receiver': a function titled "{q}'s receiver"
        title = rs.titles.get(f) or ""
        named = re.fullmatch(r"\{\w+\}'s ([\w ]+?)(?: (?:for|to|of) \{\w+\})?", title) \
            or re.fullmatch(r"the (\w+) (?:of|for|in) (?:the |a )?(?:\w+ )?\{\w+\}", title)  # "{c}'s price for {p}", "the
        # thirst of round {r}"
        if doc and named and " " not in named.group(1):  # (a count or a value a title says is no term)
            out.append((named.group(1), w.label(doc)))  # ({NAME} values filled, as in a label)
    out += [t for t in variable_terms(rs, w) + keyed_terms(rs, w) + named_terms(rs, w)
            if t[0].lower() not in {x[0].lower() for x in out}]  # (then 'the auctioneer', 'the lot': flow/names.py)
    return out + ([] if rs.aid.get("key") else class_terms(rs))  # (a designer's card key says what the cards are)


def variable_terms(rs: M.Ruleset, w: Words) -> list[tuple[str, str]]:
    """A game variable with no `doc:` that names a player ('the opener'), defined by what the rules set it to, in
    order: 'First the first player, then the next player in turn' (not 'then the player after the opener')."""
    values: dict[str, list[str]] = {}
    where: dict[str, list[str]] = {}  # the paths of the steps that set it: a then and an else of one condition
    for seq, step in rs.iter_steps():
        for st in own_statements(step):
            for n in st.ast.walk():
                if isinstance(n, A.Assign) and n.op == "=" and isinstance(n.target, A.Name) \
                        and n.target.id in rs.variables and not (isinstance(n.value, A.Name) and n.value.id == "none"):
                    said = w.expr(n.value)
                    if isinstance(n.value, A.Name) and n.value.id in seq.params:  # 'then the player': who is that?
                        said = "the player whose turn it is" if seq.kind == "turn" and said == "the player" else "?"
                    if isinstance(n.value, A.Name) and n.value.id in w.info.persons or \
                            isinstance(n.value, A.Attr) and n.value.name == "winner":  # ('the dealer', 'the winner')
                        said += "\0"  # a player, though its words do not say so
                    if said not in values.setdefault(n.target.id, []):
                        values[n.target.id].append(said)
                        where.setdefault(n.target.id, []).append(re.sub(r"\.(?:then|else)\.\d+$", "", step.path))
    out = []
    for vid, said in values.items():
        v = rs.variables[vid]
        if not v.doc and v.title and not (rs.aid.get("words") or rs.aid.get("turn")) \
                and not any("player" in x or "\0" in x for x in said):
            out += value_term(rs, w, v)  # 'the trump suit', 'the value to beat': what it is set to (a designer
            # who wrote the aid's words or its turn composed the aid by hand, and chose the terms it defines)
        if v.doc or not said or len(said) > 2 or not all(("player" in x or "\0" in x) and len(x) <= 60 for x in said) \
                or "?" in said:
            continue  # (who it is, said shortly: 'the opener'; a count, a suit, a card says itself)
        said = [x.replace("\0", "") for x in said]
        said = [re.sub(rf"^the player after {re.escape(w.name(vid))}$", "the next player in turn", x) for x in said]
        either = len(said) == 2 and len(set(where[vid])) == 1  # set on a yes and on a no: one or the other
        name = (v.title or vid.replace("_", " ")).removeprefix("the ")
        if name in ("first", "last", "next", "current", "best") or f"the {name}" in said:  # a plain word, or itself
            continue
        out.append((name, (capital(said[0]) if len(said) == 1 else f"{capital(said[0])}, otherwise {said[1]}" if either
                           else f"First {said[0]}, then {said[1]}") + _in_tricks(rs, vid)))
    return out


def value_term(rs: M.Ruleset, w: Words, v: M.VariableDef) -> list[tuple[str, str]]:
    """A titled game value with no `doc:` that is no player ('the trump suit', 'the value to beat'), defined by where
    it starts and what the rules set it to, each as its step says it ('the suit the caller chose'); the trump of a
    trick says what a trump does. [] where its changes are many or long (the sheets say them)."""
    from rulecraft.tools.words.text import join_and

    target = w.name(v.id)
    if isinstance(v.initial, bool):
        return []  # a yes or no ('the last round') says itself
    start = None if v.initial is None or v.initial == [] else w.value(v.initial)
    said: list[str] = []
    labels: set[str] = set()  # the designer's words for the steps that set it
    for seq, step in rs.iter_steps():
        for st in own_statements(step):
            for n in st.ast.walk():
                if isinstance(n, A.Assign) and isinstance(n.target, A.Name) and n.target.id == v.id:
                    if n.op != "=" or any(isinstance(x, A.Name) and x.id in seq.params or isinstance(x, A.BinOp)
                           and x.op in ("//", "%", "/") for x in n.value.walk()):
                        return []  # ('the source's type': a parameter names nobody the aid defines; 'the raise divided
                        # by 10, rounded down' is a number the engine packs, not a rule; a count the steps change)
                    text, lead = w.stmt(n), f"set {target} to "
                    text = text[len(lead):] if text.lower().startswith(lead.lower()) else ""
                    labels.add(w.label(designer_label(step)))
                    if text and text not in said:
                        said.append(text)
    if not said or len(said) > 3 or any(len(x) > 60 for x in said):
        return []
    back = start is not None and start in said  # 'set top = 0' when the pile is cleared: back where it started
    others = [x for x in said if x != start]
    if not others:
        return []
    text = (f"It starts at {start}; then it is set to " if start is not None else "") + join_and(others, "or") \
        + (f", and back to {start}" if back else "")
    if len(labels) == 1 and "" not in labels and start is None:  # one step sets it, in the designer's words
        text = labels.pop().rstrip(".")  # ('Turn up the next card; its suit is trumps this round')
    return [(v.title.removeprefix("the "), capital(text) + _in_tricks(rs, v.id))]  # ('leader' is met in lower case)


def _in_tricks(rs: M.Ruleset, vid: str) -> str:
    """What a trick does with a value it names: the trump suit's cards beat the others; the leader is set to whoever
    takes a trick."""
    tricks = [dict(s.settings) for _q, s in rs.iter_steps() if isinstance(s, M.ConstructStep) and s.construct == "trick"]
    text = ". In a trick, a trump (a card of this suit) beats every card of the other suits" \
        if any(t.get("trump") == vid for t in tricks) else ""
    if any(t.get("leader") == vid and t.get("next_leader", "").lower() != "false" for t in tricks):
        text += ". Then whoever takes a trick leads the next"  # (the trick sets it to its winner)
    return text


def keyed_terms(rs: M.Ruleset, w: Words) -> list[tuple[str, str]]:
    """A titled value with no `doc:` kept for each key of a table ('Water', per levee), said as what it is: whose,
    for which rows, and where it starts when it starts above nothing ('A number for each levee (Mill levee, Bridge
    levee and Orchard levee), one for the whole table; it starts at 1, 2 and 0')."""
    from rulecraft.tools.words.expressions import key_titles
    from rulecraft.tools.words.locals import row_noun
    from rulecraft.tools.words.text import join_and

    out = []
    for v in list(rs.variables.values()) + list(rs.player_variables.values()):
        table = next((t for t, d in rs.tables.items() if v.keys and tuple(d.keys) == tuple(v.keys)), None)
        noun = row_noun(w, table) if table else ""
        if not v.title or v.doc or not noun or v.visibility == "hidden":
            continue
        titles = key_titles(w)
        said = (f"Each player's own number for each {noun}" if v.per_player else f"A number for each {noun}") \
            + f" ({join_and([str(titles.get(k, k)) for k in v.keys])})" + ("" if v.per_player else ", one for the whole table")
        start = v.initial if isinstance(v.initial, dict) else {}
        if all(isinstance(start.get(k), int) and not isinstance(start.get(k), bool) for k in v.keys) \
                and any(start.values()):
            said += "; it starts at " + join_and([str(start[k]) for k in v.keys])
        out.append((capital(v.title.removeprefix("the ")), said))
    return out


# an attribute's name ending in one of these is a clause ('paid in', 'kept on'), not a noun ('price')
_ENDS_CLAUSE = frozenset("in on at by for from to with into onto of".split())


def column_notes(rs: M.Ruleset, t: M.TableDef, w: Words) -> str:
    """What an undocumented column of a table is, where the cards read it: on every card with a row of the table
    (`colour: red`) some attribute equals that row's cell ('paid_in: =colours[colour].next'), so the column
    says what that attribute is for a card of each row ('Next: the colour a card of that colour is paid in.')."""
    from rulecraft.tools.words.locals import row_noun

    keys, notes = set(t.keys), []
    for col in (c for c in t.columns if c != "title"):
        if len({repr(t.rows[k].get(col)) for k in t.keys}) < 2:
            continue
        for by in sorted({a for c in rs.cards for a, v in c.attrs.items() if isinstance(v, str) and v in keys}):
            held = [c for c in rs.cards if c.attrs.get(by) in keys]
            same = [a for a in sorted(held[0].attrs) if a not in (by, col) and held and all(
                c.attrs.get(a) == t.rows[c.attrs[by]].get(col) for c in held)] if held else []
            if same and {c.attrs[by] for c in held} == keys:
                noun = row_noun(w, t.id) or humanize(by)
                attr = humanize(same[0])
                if attr.split()[-1] in _ENDS_CLAUSE:  # 'paid in': what a card is paid in, not 'the paid in of a card'
                    what = f"the {noun}" if all(t.rows[k].get(col) in keys for k in t.keys) else "what"
                    notes.append(f"{capital(humanize(col))}: {what} a card of that {noun} is {attr}.")
                else:
                    notes.append(f"{capital(humanize(col))}: the {attr} of a card of that {noun}.")
                break
    return " ".join(notes)


def table_views(rs: M.Ruleset, w: Words) -> list[dict]:
    chosen = rs.aid.get("tables")
    # a table with a title, or whose rows have titles and say something more of each: written for players
    ids = chosen if chosen is not None else [k for k, t in rs.tables.items()
                                             if (t.title or ("title" in t.columns and len(t.columns) > 1))
                                             and len(t.columns) <= TABLE_COLUMNS]
    out = []
    for tid in ids:
        t = rs.tables.get(tid)
        if t is None:
            continue
        head, rows = players_table(t, w)
        out.append({"title": t.title or capital(humanize(tid)), "doc": t.doc or column_notes(rs, t, w), "head": head,
                    "rows": rows})
    return out


def players_table(t: M.TableDef, w: Words) -> tuple[list[str], list[list[str]]]:
    """A table as players read it: a row named by its `title` column where it has one (not by its key), empty
    cells as a dash, text cells with their {names} filled as a label's are. Returns the heading and the rows."""
    named = "title" in t.columns
    rs = w.rs
    # a column of the engine's own names (the sequence a row runs) is no reading for players
    internal = {c for c in t.columns if t.keys and all(isinstance(t.rows[k].get(c), str) and
                                                       t.rows[k].get(c) in rs.sequences for k in t.keys)}
    columns = [c for c in t.columns if not (named and c == "title") and c not in internal]

    from rulecraft.tools.words.expressions import key_titles

    def cell(v):  # a cell naming a row of a titled table ('banker') by its title ('Banker')
        if isinstance(v, str) and v in key_titles(w):
            return key_titles(w)[v]
        return "–" if v is None else w.label(v) if isinstance(v, str) and "{" in v else w.value(v)

    rows = [[cell(t.rows[k].get("title")) if named else w.value(k)] + [cell(t.rows[k].get(c)) for c in columns]
            for k in t.keys]
    return [""] + [capital(humanize(c)) for c in columns], rows


def words_box(rs: M.Ruleset, w: Words, texts: list[str]) -> tuple[list, list]:
    """The terms the aid's own text uses (`texts`), each once, in the order the ruleset defines them; and those to
    leave out first from an aid over two pages, the last to go first: the kinds of card the names already hint at,
    then the values defined by what sets them."""
    box, places = _box(rs, w, texts), {t for t, _d in place_terms(rs)}  # and the terms their definitions use
    box = _box(rs, w, texts + [d for _t, d in box])  # ('shuffle the Melt-water': what is that?); a place named by its
    box = [x for x in box if not any(t in places and d.startswith(x[0] + " (") for t, d in box)]  # id: not its title
    values = {name.lower() for v in rs.variables.values() if v.title for name, _d in value_term(rs, w, v)}
    return box, [x for x in box if x[1].startswith(KIND_OF_CARD)] + [x for x in box if x[0].lower() in values]


def _box(rs: M.Ruleset, w: Words, texts: list[str]) -> list[tuple[str, str]]:
    said = "\n".join(texts)
    designer = {capital(str(k)) for k in (rs.aid.get("words") or {})}
    box, seen = [], set()
    roles = {t.lower() for t, _d in variable_terms(rs, w) + named_terms(rs, w)}  # met in lower case too ('the
    # opener', 'the lot'); 'stack' is not
    for term, doc in terms(rs, w):
        key = term.lower()
        if key in seen or not doc:
            continue
        forms = _forms(term)  # 'the market row' names the Market row: a title of words is met in lower case too
        forms += [f[:1].lower() + f[1:] for f in forms if f[1:2].islower() and (" " in f or key in roles)] \
            + ["the player who leads"] * ("whoever takes a trick leads the next" in doc)  # (a trick's words for it)
        if capital(term) in designer or any(re.search(r"(?<![\w'])" + re.escape(f) + r"(?![\w'])", said)
                                            for f in forms):
            seen.add(key)
            box.append((capital(term), doc if doc.endswith((".", "!", "?")) else doc + "."))
    return box[:WORDS]


def card_texts(rs: M.Ruleset, shared: bool = False) -> list[tuple[str, str]]:
    """What the cards do (their `doc:`), one row per text in the order the cards come, named by the cards that
    say it. A text many cards share describes their whole group (a card of the deck), not a power: only with
    `shared` (the book), named by the first of them."""
    names: dict[str, list[str]] = {}
    for c in rs.cards:
        if c.text and c.name not in names.setdefault(c.text, []):
            names[c.text].append(c.name)
    return [(", ".join(n) if len(n) <= 3 else f"{n[0]} and {len(n) - 1} more", text) for text, n in names.items()
            if len(n) == 1 or shared]


def function_name(w: Words, rs: M.Ruleset, f: str) -> str:
    """A function named for the aid and the book: with its one argument ('a player's set points'), or with all
    when its title places them ('{c}'s value this round'), else by its name alone ('Kind count')."""
    params = rs.functions[f][0]
    if len(params) == 1 or "{" in (rs.titles.get(f) or ""):
        return w.expr(A.Call(None, f, None, tuple(A.Name(None, p) for p in params), ()))
    return rs.titles.get(f) or humanize(f)


def walk(steps, inside: bool):
    """Steps depth first, each with whether it lies inside a branch (an if's then or else, a construct's part)."""
    for s in steps:
        yield s, inside
        kind = kind_of(s)
        for _name, body in s.bodies:
            yield from walk(body, inside or (kind is not None and kind.outcomes))


def kept_score_steps(rs: M.Ruleset, name: str, limit: int = 5) -> list[str]:
    """How the steps change a score kept in player variable `name` (`p.points += ...`) where no function counts
    it: every rule that adds to it, takes from it or sets it (a reader told only of the adds believes it never goes
    down), a rule that chooses what to do said whole ('If the player's Tricks are their Call: add 10 plus ...;
    otherwise add the player's Tricks to their Points'), else each step; by the designer's label where the step
    has one, so the words are the order of play's own."""
    from rulecraft.dsl import ast as A

    w = Words(rs, detail="players")
    kept = rs.player_variables.get(name)
    if kept is None or isinstance(kept.initial, bool) or not isinstance(kept.initial, (int, float)):
        return []  # a list kept (the cards bought) or a flag: not points

    def counting(s: M.Step) -> bool:  # a step that only changes values (nothing else that a player would miss)
        stmts = [st.ast for st in own_statements(s) if not isinstance(st.ast, (A.Log, A.Tell, A.Tally, A.Assert))]
        return bool(stmts) and all(isinstance(a, (A.Assign, A.Let)) for a in stmts)

    def changes(s: M.Step) -> bool:  # such a step that changes the score
        return counting(s) and any(isinstance(a, A.Assign) and isinstance(a.target, A.Attr)
                                   and a.target.name == name for a in (st.ast for st in own_statements(s)))

    def one(x: M.Step) -> str:
        text = w.label(designer_label(x)) or w.step(x, own_label=False)
        if not designer_label(x) and x.bodies and yes_no(x) is None:  # a loop says what it does on each pass
            text += ", " + said([b for _n, body in x.bodies for b in body])
        return text[:1].lower() + text[1:]

    def said(steps) -> str:
        return "; ".join(one(x) for x in steps)

    out: list[str] = []
    inside = {path for path, _x in set_before_play(rs).get(name, ())}  # what it starts at: the set-up says it
    for seq in rs.sequences.values():
        for s, branched in walk(seq.steps, False):
            if s.path in inside:
                continue
            _cond, yes, no = yes_no(s) or (None, (), ())
            body = (*yes, *no)  # a condition's steps
            label = w.label(designer_label(s))
            nested = [x for _n, b in s.bodies for x in M.walk_steps(b)]
            if label and ("?" in label or not body and not any(yes_no(x) for x in nested)) and nested \
                    and all(counting(x) or x.bodies for x in nested) and any(changes(x) for x in nested):
                # a labelled rule that asks (or a loop of plain changes) says itself; a bare question says what a yes
                # does; a label over a rule of its own ('Score the round') leaves the saying to the rule's words
                out.append(sentence(label if not label.rstrip().endswith("?") or not yes
                                    else f"{label} Then {said(yes)}" + (f"; otherwise, {said(no)}" if no else "")))
                inside |= {x.path for x in nested}
            elif body and all(counting(x) for x in body) and any(changes(x) for x in body):
                out.append(sentence(f"{w.step(s, own_label=False)}: {said(yes)}"
                                    + (f"; otherwise {said(no)}" if no else "")))
                inside |= {x.path for x in M.walk_steps(body)}
            elif changes(s) and (not branched or designer_label(s)):
                # (an unlabelled change on some condition only is said with it, or not at all; a label is a rule)
                out.append(sentence(one(s)))
    return list(dict.fromkeys(out))[:limit]


def sentence(text: str) -> str:
    text = capital(" ".join(text.split()))
    return text if text.endswith((".", "?", "!", ":", "?”")) else text + "."


def only_otherwise(w: Words, s: M.Step, text: str, parts: list[str]) -> tuple[str, list[str]]:
    """An `if` whose `then` says nothing players read (a log) and whose `else` does: 'if the total is not 6, add
    1', not 'if the total is 6, otherwise add 1' (the yes said nothing, so the line read as if it were cut short)."""
    if (isinstance(s, M.IfStep) and s.cond is not None and len(parts) == 1 and parts[0].startswith("otherwise ")
            and text.lower().startswith("if ") and "house rule" not in text):
        return f"{text[:3]}{negate(w, s.cond.ast)}", [parts[0][len("otherwise "):]]
    return text, parts
