"""What a person at the table reads: values in the game's words, and a seat view (tools.table.seatview: what
one seat may see, as data) drawn for a terminal: `render_plain` gives lines for a pipe or a test, `render_rich`
the same content laid out with rich. Everything drawn comes from the seat view, so what it holds for the browser
shows at the terminal too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rulecraft.runtime.story import game_label
from rulecraft.diagnostics import UNPRINTABLE
from rulecraft.values import Card, Player, ZoneRef


# ------------------------------------------------------------------ words for values
def say_value(v: Any, game=None) -> str:
    """A value as a player reads it: card and player names, zones by title, lists joined, yes/no."""
    if isinstance(v, ZoneRef) and game is not None:
        return game_label(game, v)
    if v is None:
        return "—"  # nothing set yet: a dash, as a score pad leaves a cell
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (Card, Player)):
        return v.name
    if isinstance(v, str) and game is not None:  # a key of a table that titles its rows: 'market' is 'Market'
        from rulecraft.tools.words.expressions import table_key_titles

        return table_key_titles(game.rs).get(v, v)
    if isinstance(v, (list, tuple)):
        return ", ".join(say_value(x, game) for x in v) or "empty"
    if isinstance(v, dict):  # a value per key of a family (or a record): each key by its title
        return ", ".join(f"{say_value(k, game)} {say_value(x, game)}" for k, x in v.items()) or "—"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


@dataclass
class CardView:
    """A card as players know it: its name, its types (the ruleset's card classes, in words) and its rules text."""

    id: str
    name: str
    types: list[str]
    text: str = ""


def card_view(game, card: Card) -> CardView:
    """A type that only repeats the card's name ('Stone (Stone)') is left out: it tells a player nothing."""
    types = [t for t in (_words(c) for c in sorted(card.classes)) if t.casefold() != card.name.casefold()]
    return CardView(card.id, card.name, types, card_text(game.rs, card))


def card_text(rs, card: Card) -> str:
    """The card's rules text in the ruleset's words: its group's `doc:`, else the player aid's entry for it
    (`aid: powers`, keyed by the card's name, perhaps with a note in brackets after it); {names} of the ruleset
    filled, as the aid fills them."""
    from rulecraft.tools.words.labels import fill

    if card.doc:
        return fill(rs, card.doc)
    powers = rs.aid.get("powers") if isinstance(rs.aid, dict) else None
    for key, text in (powers or {}).items():
        if key == card.name or str(key).startswith(card.name + " ("):
            return fill(rs, str(text))
    return ""


def json_value(v: Any, game) -> Any:
    """A game value as plain JSON: cards and players by name, zones by title."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (Card, Player)):
        return v.name
    if isinstance(v, ZoneRef):
        return game_label(game, v)
    if isinstance(v, (list, tuple)):
        return [json_value(x, game) for x in v]
    if isinstance(v, dict):
        return {str(k): json_value(x, game) for k, x in v.items()}
    return str(v)


def _words(name: str) -> str:
    return name.replace("_", " ").strip().capitalize()


def zone_title(game, ref: ZoneRef) -> str:
    """A zone's title; a player's own zone by its title alone (the row says whose it is)."""
    z = game.rs.zones[ref.zone]
    title = (z.title or _words(z.id)) if z.per == "player" else game_label(game, ref)
    return _heading(title)


def _heading(title: str) -> str:
    """A title written for sentences ('the lot pile') as a row's heading ('Lot pile')."""
    title = title.removeprefix("the ").removeprefix("The ")
    return title[:1].upper() + title[1:]


def var_title(vdef) -> str:
    """A variable's title as a row's heading: 'the first player', written for sentences, heads a row as 'First player'."""
    return _heading(vdef.title) if vdef.title else _words(vdef.id)


def choice_names(d, game) -> list[str]:
    """The options of a decision as a person reads them; a card with a text (its `doc:`) says what it does."""
    if d.labels:
        return list(d.labels)
    return [("pass" if o is None else say_value(o, game)) + (f" – {o.text}" if isinstance(o, Card) and o.text else "")
            for o in d.options]


def decision_lines(d, view: dict, seat: int, rs=None) -> list[str]:
    """A decision drawn plainly from a seat's `Game.view` (no table at hand: a test, a program driving a person
    itself): the seat's zones and variables, the question (headed by the step's label or, for a bid, its
    amounts when the ruleset `rs` is given), the numbered options, how to answer."""
    from rulecraft.tools.words.seat.answers import amounts, how_to_answer, what_is_asked

    lines = ["", f"--- {view['players'][seat]}, your decision ---"]
    for slot, cards in view["zones"].items():
        if isinstance(cards, list):
            if cards:
                lines.append(f"  {slot}: {', '.join(cards)}")
        elif cards.get("count"):
            top = f", top {cards['top']}" if cards.get("top") else ""
            lines.append(f"  {slot}: {cards['count']} cards{top}")
    mine = view["player_variables"][seat] if view["player_variables"] else {}
    if mine:
        lines.append("  you: " + ", ".join(f"{k} {v}" for k, v in mine.items()))
    lines.append(what_is_asked(d, rs))
    if d.kind in ("one", "subset") and amounts(d) is None:
        for i in range(len(d.options)):
            text = getattr(d.options[i], "text", "") if not d.labels else ""  # a card says what it does
            lines.append(f"  {i + 1}) {d.describe_option(i)}{f' – {text}' if text else ''}")
    lines.append(how_to_answer(d))
    return lines


def commands(undo: bool = True, pass_until: bool = False) -> str:
    """The words a person may type besides an answer; `undo` only where it can work (one person at the table),
    `pass until` where the question can be passed (tools.table.passing)."""
    also = ["? or help (the rule of this step)"]
    if pass_until:
        also.append("pass until (pass this question until something in it changes)")
    also += ["undo (take back your last decision)"] if undo else []
    return "Also: " + ", ".join(also + ["quit (save and stop)"]) + "."


# ------------------------------------------------------------------ rendering
def choice_texts(v) -> list[str]:
    """The numbered choices of a seat view's decision: a card with its types and what it does (its `doc:`)."""
    d = v.decision
    if d is None or d.kind not in ("one", "subset"):
        return []
    return [o.label + (f" ({', '.join(o.card.types)})" if o.card is not None and o.card.types else "")
            + (f" – {o.card.text}" if o.card is not None and o.card.text else "") for o in d.options]


def heading(v) -> str:
    return f"--- {v.name}, your decision ---" if v.decision is not None else f"--- {v.name} ---"


def lead_lines(v) -> list[str]:
    """What comes before the table: news for this seat, the turn order and who holds what."""
    lines = []
    if v.notices:
        lines.append("Since you last looked:")
        lines += [f"  {n}" for n in v.notices]
    if v.turn is not None:
        names = {p.seat: p.name for p in v.players}
        order = ", ".join(names.get(s, "?") + (" (now)" if s == v.turn.now else "") for s in v.turn.order)
        lines.append(f"Turn order ({v.turn.title}): {order}")
    lines += [f"{h.title}: {h.text}" for h in v.holders]
    lines += [f"In effect: {e.title} ({e.text})" for e in v.effects]
    return lines


def stack_line(v) -> str:
    st = v.stack
    if st is None:
        return ""
    on = [c.name + (f" ({', '.join(c.types)})" if c.types else "") for c in st.cards] + list(st.entries)
    return f"{st.title}: " + ", ".join(on) + " (top last)" if on else ""  # an empty stack: nothing to answer


def roll_line(v) -> str:
    r = v.decision.roll if v.decision is not None else None
    if r is None:
        return ""
    target = f"; it is made against {r.target} (that total or more succeeds)" if r.target is not None else ""
    return f"Your roll: {'+'.join(map(str, r.faces))}={r.total}" + (f" ({r.result})" if r.result else "") + target


def render_plain(v) -> list[str]:
    lines = [heading(v)] + lead_lines(v)
    if v.table:
        lines.append("Table:")
        lines += [f"  {r.title}: {r.text}" for r in v.table]
    lines.append("Players:")
    for p in v.players:
        rows = ([("Points now", str(p.points))] if p.points is not None else []) + [(r.title, r.text) for r in p.rows]
        who = p.name + (" (you)" if p.you else "")
        lines.append(f"  {who}: " + ("; ".join(f"{t}: {x}" for t, x in rows) or "-"))
    if v.now:
        lines.append("Now:")
        lines += [f"  {r.title}: {r.text}" for r in v.now]
    lines += [x for x in (stack_line(v), roll_line(v)) if x]
    if v.decision is not None:
        lines.append(v.decision.prompt)
        lines += [f"  {i + 1}) {c}" for i, c in enumerate(choice_texts(v))]
        lines.append(v.decision.how)
    return lines


def render_end_plain(v) -> list[str]:
    """The end of the game for a seat: every pile revealed, then each player's score, part by part."""
    lines = ["--- The end: everything revealed ---"] + render_plain(v)[1:]
    if v.end is not None and any(s["parts"] for s in v.end.scores):
        lines.append("Final scores:")
        for s in v.end.scores:
            parts = "; ".join(f"{p['title']} {p['points']}" for p in s["parts"])
            lines.append(f"  {s['name']}: {s['total']}" + (f" ({parts})" if parts else ""))
    return lines


def _players(columns: list[str], rows: list, width: int | None):
    """The players as a table, a column per thing they have; where the terminal is too narrow for every column
    at its longest word (a phone, a split pane), a block per player, a line per thing."""
    from rich.console import Group
    from rich.table import Table

    def longest(texts) -> int:
        return max((len(w) for t in texts for w in str(t).split()), default=0)

    need = 4 + longest(who for who, _h in rows) + sum(
        2 + max(longest([title]), longest(have.get(title, "") for _w, have in rows)) for title in columns)
    if width is None or need <= width:
        pt = Table(box=None, padding=(0, 2), show_edge=False)
        pt.add_column(_t("Player", "bold"))
        for title in columns:
            pt.add_column(_t(title, "bold"), overflow="fold")
        for who, have in rows:
            pt.add_row(_t(who, "bold cyan"), *[_t(have.get(title, "")) for title in columns])
        return pt
    blocks = []
    for who, have in rows:
        grid = Table.grid(padding=(0, 2))
        for title in columns:
            if title in have:
                grid.add_row(_t("  " + title, "bold"), _t(have[title], "dim" if have[title] == "empty" else ""))
        blocks += [_t(who, "bold cyan"), grid]
    return Group(*blocks)


# control characters of a stranger's ruleset (card names, prompts) are shown as '?', never sent to the terminal
_CONTROL = UNPRINTABLE  # (the bidirectional controls and U+2028/U+2029 too: rulecraft.diagnostics)


def _t(text: str, style: str = ""):
    """Ruleset text as a rich Text: never read as markup, control characters made visible."""
    from rich.text import Text

    return Text(str(text).translate(_CONTROL), style=style)


def render_rich(v, width: int | None = None):
    """The same content as `render_plain`, as rich renderables for a terminal `width` columns wide (None: any)."""
    from rich.console import Group
    from rich.panel import Panel
    from rich.table import Table

    parts = []
    lead = lead_lines(v)
    if lead:
        parts.append(_t("\n".join(lead), "bold magenta"))
    if v.table:
        t = Table.grid(padding=(0, 2))
        for r in v.table:
            t.add_row(_t(r.title, "bold"), _t(r.text, "dim" if r.text == "empty" else ""))
        parts.append(Panel(t, title="Table", title_align="left"))
    columns: list[str] = []  # one column per thing a player has, in the order first met
    rows = []
    for p in v.players:
        have = ([("Points now", str(p.points))] if p.points is not None else []) + [(r.title, r.text) for r in p.rows]
        columns += [t for t, _x in have if t not in columns]
        rows.append((p.name + (" (you)" if p.you else ""), dict(have)))
    parts.append(Panel(_players(columns, rows, width), title="Players", title_align="left"))
    now = [(r.title, r.text) for r in v.now] + [(x.split(": ", 1)[0], x.split(": ", 1)[1])
                                                for x in (stack_line(v), roll_line(v)) if x]
    if now:
        nt = Table.grid(padding=(0, 2))
        for title, text in now:
            nt.add_row(_t(title, "bold yellow"), _t(text))
        parts.append(Panel(nt, title="Now", title_align="left"))
    if v.decision is not None:
        ask = _t(v.decision.prompt, "bold")
        for i, c in enumerate(choice_texts(v)):
            ask.append_text(_t(f"\n  {i + 1}) {c}"))
        ask.append_text(_t("\n" + v.decision.how, "dim"))
        parts.append(Panel(ask, title=_t(f"{v.name}, your decision"), title_align="left", border_style="green"))
    return Group(*parts)
