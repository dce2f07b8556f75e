"""The game's story as lines with an audience: who may read a line, and what everyone else reads instead.

A `Line` is text (a `str`, so the narrative stays a list of texts for tests, scenarios and designers) that also
says which seats may read it (`only`, None for everyone), what the others read in its place (`public`, None for
nothing) and what kind of line it is (`kind`: 'event', or 'header' for the start of a round or turn, with its
`level`). What a person at the table is shown is decided by `Line.for_seats`, so every tool keeps a seat's secrets
the same way.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

from ..dsl.builtins import text_of
from ..dsl.guards import name_shown
from ..dsl.ops import _MISSING, restore_local
from ..model.secrecy import log_fields, log_readers
from ..values import Card, Player, ZoneRef


class Line(str):
    only: Optional[frozenset]
    public: Optional[str]
    kind: str
    level: int
    forced: Any  # the decision whose only legal answer the line tells (runtime.decisions.Decision), else None

    def __new__(cls, text: str, only: Optional[Iterable[int]] = None, public: Optional[str] = None,
                kind: str = "event", level: int = 0, forced: Any = None) -> "Line":
        line = super().__new__(cls, text)
        line.only = None if only is None else frozenset(only)
        line.public = public
        line.kind = kind
        line.level = level
        line.forced = forced
        return line

    def for_seats(self, seats: Optional[Iterable[int]]) -> Optional[str]:
        """The text the people at `seats` may read (None: every seat, a spectator of a game of bots), or None
        when the line is not for them at all."""
        if self.only is None or seats is None:
            return str(self)
        if self.only & frozenset(seats):
            return str(self)
        return self.public


def line_text(line: str, seats: Optional[Iterable[int]]) -> Optional[str]:
    """What `seats` may read of a narrative line (a plain text is for everyone)."""
    return line.for_seats(seats) if isinstance(line, Line) else line


ONLY_CHOICE = " (the only choice)"  # the note of a forced answer (machine/questions.py)


def forced_in_secret(line: str) -> Optional[int]:
    """The seat whose forced answer `line` tells, when the others read it as an answer that seat chose (its legal
    answers were worked out from something they cannot see: docs/secrecy.md), else None. A table asks it of its
    decider as any decision of theirs (the decision is `line.forced`), so that whom it asks tells the others nothing."""
    if not isinstance(line, Line) or line.forced is None:
        return None
    if line.public is not None and line.public.endswith(ONLY_CHOICE):  # the others read that it was forced
        return None
    return line.forced.player


def one_line(text: str) -> str:
    """A story line is one line: a ruleset's text with line breaks in it is joined with spaces, so it cannot
    print lines of its own (a forged 'Winner: P2' before the real one)."""
    return " ".join(part.strip() for part in text.replace("\r", "\n").split("\n") if part.strip())


# ------------------------------------------------------------------ what the story says of a decision and its answer
def label(value: Any) -> str:
    if value is None:
        return "pass"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (Card, Player)):
        return str(value)
    if isinstance(value, list):
        return ", ".join(label(v) for v in value) or "nothing"
    if type(value) is dict:  # a record (a claim, a block): its fields in words
        return "(" + ", ".join(f"{k}: {label(v)}" for k, v in value.items()) + ")"
    return str(value)


def shown(g, f, step, p, value) -> str:
    """A revealed sealed choice as a person reads it: by the decision's display names, where it has them."""
    spec = step.decision
    if spec is None or spec.display is None or value is None:
        return game_label(g, value)
    f.locals[step.var] = p  # the display may read the player (e.g. their hand)
    if isinstance(value, list):
        return ", ".join(display_names(g, spec, value)) or "nothing"
    return display_names(g, spec, [value])[0]


def display_names(g, spec, options: list) -> list[str]:
    """The name a person sees for each option: the decision's 'display' with its name bound to the option ('pass'
    for the pass of an optional decision)."""
    name, loc = spec.display_as, g.locals
    saved = loc.get(name, _MISSING)
    out = []
    try:
        for o in options:
            if o is None:
                out.append(label(None))
                continue
            loc[name] = o
            out.append(name_shown(text_of(spec.display.fn(g)), g, getattr(spec.display, "span", None) or spec.span))
    finally:
        restore_local(loc, name, saved)
    return out


def game_label(game, value: Any) -> str:
    """As `label`, with zones called by their titles ('Starting piles (3)', 'Hand of P2', not 'piles[3]')."""
    if isinstance(value, ZoneRef):
        z = game.rs.zones.get(value.zone)
        title = (z.title if z is not None and z.title else value.zone.replace("_", " "))
        if value.key is None:
            return title
        if z is not None and z.per == "player" and isinstance(value.key, int) and 0 <= value.key < len(game.players):
            return f"{title} of {game.players[value.key]}"
        titles = getattr(game.rs, "key_titles", None) or {}
        return f"{title} ({titles.get(value.key) or label(value.key)})"
    if isinstance(value, list):
        return ", ".join(game_label(game, v) for v in value) or "nothing"
    return label(value)


def narrate_choice(game, d, value: Any, note: str = "") -> None:
    """Tell the story of an answered decision `d` (runtime.decisions.Decision): a secret one in full to its decider only; the others read that
    it was made. `note` (" (the only choice)") is for everyone only when what forced the answer is seen by
    everyone; when the legal answers come from something the others cannot see (`d.hidden`), they read the
    decision as they would read any answer to it (docs/secrecy.md)."""
    who = game.players[d.player]

    def said(prompt: str, answer: str) -> str:  # a decision with no prompt: 'P2 chooses 3', never 'P2:  -> 3'
        return f"{who}: {prompt} -> {answer}" if prompt else f"{who} chooses {answer}"

    text = said(d.prompt, d.label_of(value) if d.labels else game_label(game, value))
    prompt, public = d.prompt, text  # what the others read: a prompt or display name reading a secret is not
    plan = d.public_of
    if plan is not None:
        prompt = plan.public_prompt(game) if plan.public is not None else prompt
        shown = d.label_of(value) if d.labels and not plan.display_hidden else game_label(game, value)
        public = said(prompt, shown)
    forced = d if note else None
    if d.secret:
        game.say(text + note, only=(d.player,),
                 public=f"{who}: {prompt} (chosen in secret)" if prompt else f"{who} chooses in secret", forced=forced)
    elif (note and d.hidden) or public != text:
        game.say(text + note, only=(d.player,), public=public + ("" if d.hidden else note), forced=forced)
    else:
        game.say(text + note)


ANSWERED = " has answered"  # what the others read of a sealed answer until the reveal ("P2 has answered")


def narrate_sealed(game, d, value: Any, note: str = "") -> None:
    """A sealed answer as it is given: what was chosen to its decider alone ("P2: Your bid? -> 4"), and to the others
    that it was made, never what ("P2 has answered": the table sees a card laid face down). A forced one (`note`,
    from options the others cannot see) is marked so for the tables (`forced_in_secret`) and reads to the others as
    any answer; the reveal tells everyone every answer (machine/decision_steps.py)."""
    who = game.players[d.player]
    answer = d.label_of(value) if d.labels else game_label(game, value)
    text = f"{who}: {d.prompt} -> {answer}" if d.prompt else f"{who} chooses {answer}"
    game.say(text + note, only=(d.player,), public=f"{who}{ANSWERED}", forced=d if note else None)


def narrate_sealed_forced(game, d, value: Any) -> None:
    """A sealed answer the rules took at once, from options the others cannot see (`narrate_sealed`)."""
    narrate_sealed(game, d, value, ONLY_CHOICE)


def zone_words(rs: Any, name: str) -> str:
    """A zone as the story names it: its title, else its id in words ('discard pile', 'draw pile'), without a
    leading article (the story puts its own: a title "The ash pile" read "The the ash pile is shuffled")."""
    words = (rs.zones[name].title or name.replace("_", " ")).lower()
    return words[4:] if words.startswith("the ") else words


def narrate_log(game, text: str, message: Any, texts: list) -> None:
    """A `log`: the rules' own words, told to every seat as written; a `{field}` naming a card kept under a name, or
    worked out from the cards of a zone some seat cannot see, is read in full only by the seats that see those cards
    (model/secrecy.py's `log_readers`), the others read '…' in its place, as the others read a prompt that reads a
    secret (docs/secrecy.md)."""
    fields = log_fields(game.rs, message)
    seats, told = log_readers(game, fields) if any(f is not None for f in fields) else (None, ())
    if seats is None:
        game.say(text)
    else:
        game.say(text, only=seats, public="".join(t if ok else "…" for ok, t in zip(told, texts)))
