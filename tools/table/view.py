"""What a person at the table sees before a decision: their own cards, every player's public information,
the shared table and the values that matter now, in the game's words.

The view is built from the game for one seat only (`seat_view`), so nothing another seat hides can reach it:
owner-only zones of other players and hidden piles show as counts, player variables declared 'owner' only for
their owner, variables declared 'hidden' never. A ruleset may say what its view shows and in which order
(`view:`); without it the view is derived from zone visibility and the declared variables. `render_plain` gives
lines for a pipe or a test, `render_rich` the same content laid out for a terminal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from rulecraft.runtime.decisions import Decision, amounts, game_label, how_to_answer
from rulecraft.values import Card, Player, ZoneRef


@dataclass
class SeatView:
    """The content of one seat's view: (title, text) rows per section, then the decision."""

    seat: int
    name: str
    table: list[tuple[str, str]] = field(default_factory=list)
    players: list[tuple[str, list[tuple[str, str]]]] = field(default_factory=list)  # (player, rows), you first
    now: list[tuple[str, str]] = field(default_factory=list)
    prompt: str = ""
    choices: list[str] = field(default_factory=list)
    how: str = ""


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
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
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


def zone_text(game, ref: ZoneRef, seat: int) -> str:
    """The contents of a zone as `seat` may see them."""
    cards = game.zones.get(ref, [])
    vis = game.rs.zones[ref.zone].visibility
    owner = game.zone_owner(ref)
    if vis == "open" or (vis == "owner" and owner is not None and owner.seat == seat):
        if vis == "owner" and game.rs.card_order:  # a hand, in the ruleset's declared card order
            cards = sorted(cards)
        return ", ".join(c.name for c in cards) or "empty"
    n = len(cards)
    count = f"{n} card{'s' if n != 1 else ''}" if n else "empty"
    if vis == "top" and cards:
        return f"{count}, top: {cards[-1].name}"
    return count


# ------------------------------------------------------------------ building
def _kept_score(rs) -> Optional[str]:
    """The player variable the score is, when scoring counts one as it is (`score: "p.points"`)."""
    from rulecraft.dsl import ast as A

    e = getattr(rs.scoring.score, "ast", None) if rs.scoring is not None else None
    return e.name if isinstance(e, A.Attr) and isinstance(e.obj, A.Name) else None


def seat_view(game, seat: int, d: Optional[Decision] = None) -> SeatView:
    rs = game.rs
    spec = rs.view
    me = game.players[seat]
    v = SeatView(seat, me.name)
    shared = list(spec.table) if spec is not None and spec.table else _default_table(game)
    for name in shared:
        if name in rs.zones:
            for ref in _refs(game, name):
                if game.zones.get(ref):  # an empty pile says nothing at the table
                    v.table.append((zone_title(game, ref), zone_text(game, ref, seat)))
        elif name in rs.variables and rs.variables[name].visibility != "hidden":
            v.table.append((var_title(rs.variables[name]), say_value(game.vars.get(name), game)))
    per_player = list(spec.players) if spec is not None and spec.players else _default_players(game)
    order = [seat] + [p.seat for p in game.players if p.seat != seat]
    from rulecraft.tools.table.scores import points_seen

    seen = points_seen(game, seat) if not game.over else {}
    if _kept_score(rs) in per_player:  # the score is a value every row shows already ('Points'): said once
        seen = {}
    for s in order:
        rows = []
        if s in seen:  # the points they would have if the game ended now, where that reveals nothing hidden
            rows.append(("Points now", say_value(seen[s])))
        for name in per_player:
            if name in rs.zones:
                rows.append((zone_title(game, ZoneRef(name, s)), zone_text(game, ZoneRef(name, s), seat)))
            elif name in rs.player_variables and game._sees_pvar(seat, s, name):
                rows.append((var_title(rs.player_variables[name]), say_value(game.pvars[s].get(name), game)))
        who = game.players[s].name + (" (you)" if s == seat else "")
        v.players.append((who, rows))
    if spec is not None:
        for item in spec.values:
            if item.when is not None and not item.when.fn(game):
                continue
            v.now.append((item.title, say_value(item.value.fn(game), game)))
    if d is not None:
        v.prompt = d.prompt or "Choose"
        v.choices = choice_names(d, game) if d.kind in ("one", "subset") and amounts(d) is None else []
        v.how = how_to_answer(d)
    return v


def choice_names(d: Decision, game) -> list[str]:
    """The options of a decision as a person reads them; a card with a text (its `doc:`) says what it does."""
    if d.labels:
        return list(d.labels)
    return [("pass" if o is None else say_value(o, game)) + (f" – {o.text}" if isinstance(o, Card) and o.text else "")
            for o in d.options]


def _refs(game, name: str) -> list[ZoneRef]:
    z = game.rs.zones[name]
    if z.per is None:
        return [ZoneRef(name)]
    return [ref for ref in game.zones if ref.zone == name]


def _default_table(game) -> list[str]:
    """Shared zones that hold cards now (a pile the engine keeps for setup is empty and so not shown), then the
    public game variables that have a title (a variable without one is taken to be the engine's own)."""
    rs = game.rs
    out = [z.id for z in rs.zones.values()
           if z.per != "player" and any(game.zones.get(ref) for ref in _refs(game, z.id))]
    out += [k for k, vd in rs.variables.items() if vd.visibility == "public" and vd.title]
    return out


def _default_players(game) -> list[str]:
    rs = game.rs
    out = [z.id for z in rs.zones.values() if z.per == "player"]
    out += [k for k, vd in rs.player_variables.items() if vd.visibility != "hidden"]
    return out


def commands(undo: bool = True) -> str:
    """The words a person may type besides an answer; `undo` only where it can work (one person at the table)."""
    also = ["? or help (the rule of this step)"] + (["undo (take back your last decision)"] if undo else [])
    return "Also: " + ", ".join(also + ["quit (save and stop)"]) + "."


# ------------------------------------------------------------------ rendering
def render_plain(v: SeatView) -> list[str]:
    lines = [f"--- {v.name}, your decision ---"]
    if v.table:
        lines.append("Table:")
        lines += [f"  {t}: {x}" for t, x in v.table]
    lines.append("Players:")
    for who, rows in v.players:
        lines.append(f"  {who}: " + ("; ".join(f"{t}: {x}" for t, x in rows) or "-"))
    if v.now:
        lines.append("Now:")
        lines += [f"  {t}: {x}" for t, x in v.now]
    lines.append(v.prompt)
    lines += [f"  {i + 1}) {c}" for i, c in enumerate(v.choices)]
    if v.how:
        lines.append(v.how)
    return lines


# control characters of a stranger's ruleset (card names, prompts) are shown as '?', never sent to the terminal
_CONTROL = {c: "?" for c in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]}


def _t(text: str, style: str = ""):
    """Ruleset text as a rich Text: never read as markup, control characters made visible."""
    from rich.text import Text

    return Text(str(text).translate(_CONTROL), style=style)


def render_rich(v: SeatView):
    """The same content as `render_plain`, as rich renderables for a terminal."""
    from rich.console import Group
    from rich.panel import Panel
    from rich.table import Table

    parts = []
    if v.table:
        t = Table.grid(padding=(0, 2))
        for title, text in v.table:
            t.add_row(_t(title, "bold"), _t(text))
        parts.append(Panel(t, title="Table", title_align="left"))
    columns: list[str] = []  # one column per thing a player has, in the order first met
    for _who, rows in v.players:
        columns += [t for t, _x in rows if t not in columns]
    pt = Table(box=None, padding=(0, 2), show_edge=False)
    pt.add_column(_t("Player", "bold"))
    for title in columns:
        pt.add_column(_t(title, "bold"), overflow="fold")
    for who, rows in v.players:
        have = dict(rows)
        pt.add_row(_t(who, "bold cyan"), *[_t(have.get(title, "")) for title in columns])
    parts.append(Panel(pt, title="Players", title_align="left"))
    if v.now:
        nt = Table.grid(padding=(0, 2))
        for title, text in v.now:
            nt.add_row(_t(title, "bold yellow"), _t(text))
        parts.append(Panel(nt, title="Now", title_align="left"))
    ask = _t(v.prompt, "bold")
    for i, c in enumerate(v.choices):
        ask.append_text(_t(f"\n  {i + 1}) {c}"))
    if v.how:
        ask.append_text(_t("\n" + v.how, "dim"))
    parts.append(Panel(ask, title=_t(f"{v.name}, your decision"), title_align="left", border_style="green"))
    return Group(*parts)
