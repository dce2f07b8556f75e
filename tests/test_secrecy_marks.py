"""Marks laid for a hidden reason: modifiers, and what a trigger's `when` reads (docs/secrecy.md, "Modifiers and
triggers").

A modifier added under an `if` whose condition reads a hidden role was listed among the effects in force on every
seat's screen ("In effect: Marked by the spy (P2)": who the spy was), and a value reading it (`modifier('marked',
p)` in an option's display name) was read by every seat. A `show` in the sequence a trigger runs was told to the
others ("P2 is shown a card in the gems") when the trigger's `when` read the hidden card that was dealt (`card is
spy`): who got the spy. Both are found by model/secrecy.py's walk of the reasons a step is reached for.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from rulecraft.agents.greedy import determinize
from rulecraft.loader import load_ruleset
from rulecraft.model import secrecy
from rulecraft.runtime.game import Game
from rulecraft.runtime.rng import SplitMix
from rulecraft.runtime.story import line_text
from rulecraft.tools.table.seatview import seat_view
from rulecraft.values import ZoneRef

RULES = """
    ruleset: tiny-marks
    title: Marks
    players: {min: 3, max: 3, default: 3}
    cards:
      - {id: spy, name: Spy, classes: [role, spy]}
      - for: {copy: [1, 2]}
        id: "guard_{copy}"
        name: Guard
        classes: [role, guard]
      - for: {copy: [1, 2, 3]}
        id: "gem_{copy}"
        name: "Gem {copy}"
        classes: [gem]
    zones:
      roles: {visibility: hidden, initial: "[c for c in cards if c is role]"}
      gems: {visibility: hidden, initial: "[c for c in cards if c is gem]"}
      role: {per: player, visibility: owner}
    modifiers:
      marked: {doc: Marked by the spy.}
      eyed: {doc: Eyed by the spy.}
      watched: {doc: Watched by everyone.}
    events:
      bell: {fields: [who]}
    triggers:
      - {id: spy_dealt, event: drawn, when: "card is spy", run: spy_looks}
      - {id: bell_rung, event: bell, run: bell_look}
    start: game
    sequences:
      spy_looks:
        params: [dest]
        steps: ["show gems.top to owner(dest)"]
      bell_look:
        params: [who]
        steps: ["show gems.top to who"]
      game:
        kind: game
        steps:
          - "shuffle roles"
          - for_each: p
            in: players
            do: ["draw from roles to p.role"]
          - for_each: p
            in: players
            do:
              - if: "any([c is spy for c in p.role])"
                then: ["add modifier marked to p value 1 until end of game",
                       "add modifier eyed to (players[0]) value 1 until end of game"]
          - "add modifier watched to (players[2]) value 1 until end of game"
          - "emit bell with who: players[0]"
          - choose:
              player: "players[0]"
              kind: one
              options: "['a', 'b']"
              display: "'{o} ({modifier(\\"marked\\", players[1])})'"
              prompt: "Pick"
              as: o
          - "end game"
"""


@pytest.fixture(scope="module")
def rs(tmp_path_factory):
    path = tmp_path_factory.mktemp("marks") / "marks.yaml"
    path.write_text(textwrap.dedent(RULES), encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    return loaded.ruleset


def _spy(g: Game) -> int:
    return next(p.seat for p in g.players if any(c.id == "spy" for c in g.zones[ZoneRef("role", p.seat)]))


def _read(g: Game, seat: int) -> list[str]:
    return [t for t in (line_text(line, {seat}) for line in g.narrative) if t is not None]


def test_a_modifier_added_for_a_hidden_reason_is_in_the_effects_of_the_seat_that_sees_why_alone(rs):
    """'Marked by the spy' is put on the spy for the spy's own role: the spy sees it on their own screen (it was on no
    seat's while the game went on), the others do not. 'Eyed by the spy', put on P1 for the spy's role, is on no
    seat's screen, P1's too (P1 would learn that somebody is the spy... and the spy that P1 was eyed)."""
    assert secrecy.hidden_modifiers(rs) == {"marked", "eyed"}
    for seed in range(3):
        g = Game(rs, 3, seed)
        spy = _spy(g)
        assert any(m[0] == "marked" and m[1] == spy for m in g.modifiers)  # in force, as the rules say
        assert any(m[0] == "eyed" and m[1] == 0 for m in g.modifiers)
        for seat in range(3):
            effects = [(e.title, e.text) for e in seat_view(g, seat, g.pending).effects]
            mine = [("Marked by the spy", g.players[spy].name)] if seat == spy else []
            assert effects == mine + [("Watched by everyone", "P3")], (seed, seat, effects)  # the open one is listed
        while not g.over:
            g.apply(g.pending.all_choices(1)[0])
        assert ("Marked by the spy", g.players[spy].name) in [(e.title, e.text) for e in seat_view(g, 0).effects]


def test_a_value_reading_such_a_modifier_is_read_by_the_decider_alone(rs):
    assert not secrecy.sight_of(rs, rs.sequences["game"].steps[-2].decision.display, 1)[0]
    g = Game(rs, 3, 0)
    g.apply(g.pending.all_choices(1)[0])
    mine, theirs = _read(g, 0), _read(g, 1)
    assert any(t.startswith("P1: Pick -> a (") for t in mine)
    assert "P1: Pick -> a" in theirs and not any("Pick -> a (" in t for t in theirs)


def test_a_show_a_trigger_runs_for_a_hidden_card_is_told_to_those_shown_alone(rs):
    for seed in range(3):
        g = Game(rs, 3, seed)
        spy = _spy(g)
        for seat in range(3):
            lines = _read(g, seat)
            looked = [t for t in lines if "is shown a card in the gems" in t and not t.startswith("P1 is shown")]
            assert looked == ([f"{g.players[spy].name} is shown a card in the gems: Gem 3"] if seat == spy else []), \
                (seed, seat, lines)
            # a trigger on an event raised for everyone to see is told as before
            assert any(t.startswith("P1 is shown a card in the gems") for t in lines), (seed, seat, lines)


def test_a_bot_plays_as_if_no_such_modifier_were_in_force(rs):
    g = Game(rs, 3, 1)
    for seat in range(3):
        c = g.copy(story=False)
        determinize(c, seat, SplitMix(seat))
        assert [m[0] for m in c.modifiers] == (["marked"] if seat == _spy(g) else []) + ["watched"]  # the spy's own


HUNT = Path(__file__).parent / "cases" / "secrecy"


@pytest.mark.parametrize("name,seed", [("relic-hunt", 5), ("tie-lots", 2)])
def test_the_browser_table_shows_no_seat_a_mark_laid_for_a_hidden_reason(tmp_path, name, seed):
    """Relic Hunt (a curse drawn: the drawer hexed and shown the vault's next card) and Tie Lots (a nine in a hidden
    hand: its holder charmed), played at the studio's table: every frame of every seat, as the server sends them,
    lists no such mark on another seat among the effects while the game goes on (a charm for one's own nine is on
    one's own screen alone, and so is a hex laid by a trigger for the curse one drew), and no seat reads another's
    look at the vault."""
    from rulecraft.tools.studio.play.table import SPECTATOR, PlayTable

    table = PlayTable.new(str(tmp_path / name), name, str(HUNT / f"{name}.yaml"), ["random"] * 3, seed, {},
                          {"spectator": "s" * 24})
    seats = [0, 1, 2, SPECTATOR]
    sent = dict.fromkeys(seats, 0)
    marks = []
    looks: dict = {seat: [] for seat in seats}
    while True:
        for seat in seats:
            frame = table.frame(seat, sent[seat])
            sent[seat] = frame["storyEnd"]
            looks[seat] += [line["text"] for line in frame["story"] if "is shown a card in the vault" in line["text"]]
            if not frame["view"]["over"]:
                marks += [(seat, e["title"], e["text"]) for e in frame["view"]["effects"]]
        if not table.step():
            break
    marked = [m for m in table.game.modifiers if m[0] in ("hexed", "charmed")]
    table.close()
    assert marked, "the seed lays no mark: choose another"
    own = {m[1] for m in marked}  # (a charm for one's own nine, a hex for the curse one drew: each their own)
    assert all(title.startswith(("Charmed", "Hexed")) and seat in own and text == f"P{seat + 1}"
               for seat, title, text in marks)
    assert {seat for seat, _t, _x in marks} == own  # each marked seat sees its own mark
    for seat in (0, 1, 2, SPECTATOR):
        assert all(t.startswith(f"P{seat + 1} ") for t in looks[seat]), (seat, looks[seat])
    assert bool(sum(map(len, looks.values()))) == (name == "relic-hunt")  # the curses drawn: each told its drawer


def test_a_trigger_asking_a_decision_for_a_hidden_reason_is_warned_of(tmp_path):
    """A curse drawn that makes its drawer discard a card: the table asks the discard of whoever drew the curse, and
    only then, so everyone learns who drew it (W330, at the trigger). Relic Hunt's curse asks nothing: no warning."""
    text = (HUNT / "relic-hunt.yaml").read_text(encoding="utf-8")
    hunt = load_ruleset(str(HUNT / "relic-hunt.yaml"))
    assert hunt.ok and not [d for d in hunt.diagnostics if d.code == "W330"]
    asking = text.replace('''        do: "add modifier hexed to owner(dest) value 1 until end of game"''',
                          '''        do: "add modifier hexed to owner(dest) value 1 until end of game"
      - {call: discard, with: {who: "owner(dest)"}}''')
    assert asking != text
    path = tmp_path / "asking.yaml"
    path.write_text(asking, encoding="utf-8")
    got = [d for d in load_ruleset(str(path)).diagnostics if d.code == "W330"]
    assert len(got) == 1 and "trigger 'curse_drawn'" in got[0].message and text.splitlines()[got[0].span.line - 1].strip().startswith("- id: curse_drawn"), got


def test_an_if_reading_such_a_modifier_asks_everyone(tmp_path):
    """Tie Lots with a charmed player offered a peek (`if: "modifier('charmed', p) > 0"` then a yes-or-no): the table
    asked the charmed player alone ('P3: Peek at the lots to come? -> yes' read by all: who held a nine). The
    modifier is hidden, so the `if` reads something hidden: everyone is asked, the others declining at once in the
    same words (loader/build.py builds the steps again knowing the hidden modifiers)."""
    text = (HUNT / "tie-lots.yaml").read_text(encoding="utf-8")
    peek = text.replace('''      - "draw 1 from lots to block"
''', '''      - "draw 1 from lots to block"
      - for_each: p
        in: players
        do:
          - if: "modifier('charmed', p) > 0"
            then: [{choose: {player: p, kind: yesno, prompt: "Peek at the lots to come?", as: peek}}]
''')
    assert peek != text
    path = tmp_path / "peek.yaml"
    path.write_text(peek, encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    g = Game(loaded.ruleset, 3, 2)
    while not g.over:
        g.apply(g.pending.all_choices(1)[0])
    charmed = {m[1] for m in g.modifiers if m[0] == "charmed"}
    assert charmed and len(charmed) < 3
    for seat in range(3):
        asked = [t.split(":")[0] for t in _read(g, seat) if "Peek at the lots" in t]
        assert asked == ["P1", "P2", "P3"] * 3, (seat, asked)


def test_a_score_reading_a_players_own_mark_is_shown_to_that_player():
    """Tie Lots scores 'modifier(charmed, p)', a charm for a nine in one's own hidden hand: 'Points now' was shown to
    nobody (the modifier read as hidden to all); now each player sees their own score, still nobody another's."""
    tie = load_ruleset(str(HUNT / "tie-lots.yaml")).ruleset
    assert [secrecy.score_seen(tie, seat, of) for seat in range(3) for of in range(3)] == \
        [seat == of for seat in range(3) for of in range(3)]


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_a_mark_a_trigger_lays_for_a_card_drawn_is_on_the_drawers_screen_alone(tmp_path, engine):
    """Relic Hunt's hex (`when: "card is curse"` on `drawn`, then `add modifier hexed to owner(dest)`) was on nobody's
    screen while the game went on: which seat saw the drawn card was not read from the ruleset. Every zone a card is
    drawn to there is a hand its owner sees, so the hexed player, who drew the curse, sees the hex; the others do not.
    Drawn into a pile nobody sees as well, the card's drawer is not known to see it: on nobody's screen."""
    path = HUNT / "relic-hunt.yaml"
    rs = load_ruleset(str(path)).ruleset
    assert rs is not None and [secrecy.modifier_seen(rs, "hexed", seat, 1) for seat in range(3)] == [False, True, False]
    hexed = 0
    for seed in range(6):
        g = Game(rs, 3, seed, engine=engine)
        while not g.over:
            on = {m[1] for m in g.modifiers if m[0] == "hexed"}
            hexed += len(on)
            for seat in range(3):
                effects = {e.text for e in seat_view(g, seat, g.pending).effects if e.title.startswith("Hexed")}
                assert effects == ({g.players[seat].name} if seat in on else set()), (seed, seat, effects)
            g.apply(g.pending.all_choices(1)[0])
    assert hexed, "no curse drawn: the test would prove nothing"
    text = path.read_text(encoding="utf-8")
    blind = text.replace("  hand: {per: player, visibility: owner, title: Hand}",
                         "  hand: {per: player, visibility: owner, title: Hand}\n  pit: {visibility: hidden}") \
        .replace('''      - "shuffle vault"''', '''      - "shuffle vault"\n      - "draw 1 from vault to pit"''')
    assert blind != text
    (tmp_path / "blind.yaml").write_text(blind, encoding="utf-8")
    rs = load_ruleset(str(tmp_path / "blind.yaml")).ruleset
    assert rs is not None and not any(secrecy.modifier_seen(rs, "hexed", seat, seat) for seat in range(3))
