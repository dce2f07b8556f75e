"""A running game: its state as plain data, and the primitive operations the compiled rules call.

The game is driven from outside: it runs until a player must decide, exposes that
`pending` decision, and continues when `apply(choice)` is called. The instruction loop
itself lives in `interpreter.py`.
"""

from __future__ import annotations

import weakref
from collections import Counter
from typing import Any, Callable, Optional

from ..diagnostics import RuleError, Span
from ..dsl.builtins import as_list, describe
from ..dsl.ops import SUSPEND, text_of
from ..model import ruleset as M
from ..values import Card, FamilyRef, Player, Roll, ZoneRef
from .decisions import Decision, IllegalChoice, label, narrate_choice
from .story import Line, one_line
from . import blocks
from .interpreter import handler_for, run
from .program import Program, compile_program
from .rng import SplitMix, fixed_faces

_PROGRAMS: "weakref.WeakKeyDictionary[M.Ruleset, dict[str, Program]]" = weakref.WeakKeyDictionary()
_MISSING = object()
ANSWER = "__answer"


class GameError(Exception):
    """A game cannot start or go on; carries the diagnostic-ready RuleError when there is one."""

    def __init__(self, message: str, rule_error: RuleError | None = None):
        super().__init__(message)
        self.rule_error = rule_error


def programs_for(rs: M.Ruleset) -> dict[str, Program]:
    progs = _PROGRAMS.get(rs)
    if progs is None:
        progs = _PROGRAMS[rs] = compile_program(rs)
        for prog in progs.values():
            for ins in prog.code:
                ins.handler = handler_for(ins)  # resolved once, not looked up by name at every step
            blocks.prepare(prog)
    return progs


class Frame:
    __slots__ = ("seq", "pc", "sub", "locals", "id", "deferred", "kind")

    def __init__(self, seq: str, kind: str, locals_: dict, fid: int):
        self.seq = seq
        self.kind = kind
        self.pc = 0
        self.sub = 0
        self.locals = locals_
        self.id = fid
        self.deferred: list = []


class Game:
    work = 0  # units of work counted against the step budget (guards.charge); set on the game at its first charge
    fixed_dice: Optional[list] = None  # results the next rolls give instead of the generator (scenarios' `dice:`)

    def __init__(self, ruleset: M.Ruleset, players: int | None = None, seed: int = 0, *,
                 names: list[str] | None = None, max_steps: int = 5_000_000, max_depth: int = 400,
                 check_conservation: bool = False, listener: Callable[[str], None] | None = None,
                 coverage: bool = False, start: bool = True, story: bool = True, headers: tuple = ()):
        rs = ruleset
        n = rs.players.default if players is None else players
        if not rs.players.min <= n <= rs.players.max:
            raise GameError(f"{rs.title} is for {rs.players.min} to {rs.players.max} players, not {n}")
        self.rs = rs
        self.programs = programs_for(rs)
        self.seed = seed
        self.players = [Player(i, (names[i] if names and i < len(names) else f"P{i + 1}")) for i in range(n)]
        self.rng = SplitMix(seed)
        self.max_steps = max_steps
        self.max_depth = max_depth
        self.check_conservation = check_conservation
        self.listener = listener
        self.coverage: Optional[Counter] = Counter() if coverage else None
        self.zones: dict[ZoneRef, list[Card]] = {}
        self.where: dict[int, ZoneRef] = {}
        self.dynamic: dict[str, int] = {}
        self.vars: dict[str, Any] = {}
        self.pvars: list[dict[str, Any]] = [dict() for _ in range(n)]
        self.marks: dict[str, dict[str, Any]] = {}
        self.modifiers: list[list] = []  # [name, seat or None, value, frame id or None]
        self.frames: list[Frame] = []
        self.pending: Optional[Decision] = None
        self.over = False
        self.winners: Optional[list[int]] = None
        self.scores: Optional[list[Any]] = None
        self.steps = 0
        self.decisions = 0
        # kinds of sequences whose start the listener is told of as a header (a table that shows them sets it)
        self.headers: tuple = tuple(headers)
        self.narrative: list[str] = []
        # story=False: nobody reads the narrative (simulations, a bot's rollouts), so it is not written and
        # 'log' statements whose text draws no chance are not even worked out; the game itself is the same
        self.story = story
        self.tallies: dict[str, dict[Any, list]] = {}  # metric -> key -> [count, sum, sum of squares]
        self.chance: list = []  # chance results since the last decision, for the log
        self.locals: dict = {}
        self.frame_counter = 0
        self.halt_depth = 0  # run() returns when no more frames than this remain (scenarios set it)
        self._events: list = []
        self._families: dict[str, list] = {}  # the zone refs of each family whose zones never change
        self.triggers: dict[str, list[M.Trigger]] = {}
        for t in rs.triggers:
            self.triggers.setdefault(t.on, []).append(t)
        if start:
            self._setup()
            self.push(rs.start, {})
            run(self)

    # ------------------------------------------------------------------ set-up
    def _setup(self) -> None:
        rs = self.rs
        for z in rs.zones.values():
            if z.per is None:
                self.zones[ZoneRef(z.id)] = []
            elif z.per == "player":
                for p in self.players:
                    self.zones[ZoneRef(z.id, p.seat)] = []
            elif z.per == "dynamic":
                self.dynamic[z.id] = 0
            else:
                for k in z.per:
                    self.zones[ZoneRef(z.id, k)] = []
        placed: set[int] = set()
        for z in rs.zones.values():
            if z.initial is not None and z.per is not None:
                msg = f"zone '{z.id}' is a family of zones (per: {z.per if isinstance(z.per, str) else 'keys'}), so it cannot hold the initial cards"
                raise GameError(msg, RuleError(msg, z.span, "give 'initial' to a single zone and deal with steps"))
            if isinstance(z.initial, M.CExpr):
                value = z.initial.fn(self)
                for c in value if isinstance(value, list) else [value]:
                    if not isinstance(c, Card) or c.index in placed:
                        raise GameError(f"zone '{z.id}': its initial cards are not a list of distinct cards")
                    placed.add(c.index)
                    self.zones[ZoneRef(z.id)].append(c)
                    self.where[c.index] = ZoneRef(z.id)
        rest = [z for z in rs.zones.values() if z.initial == "all"]
        if rest:
            ref = ZoneRef(rest[0].id)
            for c in rs.cards:
                if c.index not in placed:
                    self.zones[ref].append(c)
                    self.where[c.index] = ref
        for k, v in rs.variables.items():
            self.vars[k] = v.initial.fn(self) if isinstance(v.initial, M.CExpr) else _fresh(v.initial)
        for p in self.players:
            self.locals = {"p": p}
            for k, v in rs.player_variables.items():
                self.pvars[p.seat][k] = v.initial.fn(self) if isinstance(v.initial, M.CExpr) else _fresh(v.initial)
        self.locals = {}

    # ------------------------------------------------------------------ driving
    def apply(self, wire: Any) -> None:
        """Answer the pending decision (in wire form) and run until the next one or the end."""
        d = self.pending
        if d is None:
            raise IllegalChoice("no decision is pending" if not self.over else "the game is over")
        problem = d.legal(wire)
        if problem:
            raise IllegalChoice(problem)
        self.pending = None
        self.decisions += 1
        self.chance = []
        value = d.value(wire)
        if self.story:
            if d.purpose != "sealed" and d.purpose != "reroll":
                narrate_choice(self, d, value)
            elif d.purpose == "reroll":
                self.say(f"{self.players[d.player]} {'rolls again' if value else 'keeps the roll'}")
        f = self.frames[-1]
        f.locals[ANSWER] = value
        if self.coverage is not None and not f.sub:  # the step asked runs again with the answer: the same visit
            ins = self.programs[f.seq].code[f.pc]
            if ins.cov is not None:
                self.coverage[ins.cov] -= ins.w
            for node in ins.also:
                self.coverage[node] -= 1
        run(self)

    def push(self, seq: str, args: dict, own: bool = False) -> None:
        """Start a sequence; its locals are a copy of `args` (or `args` itself when the caller hands it over)."""
        if len(self.frames) >= self.max_depth:
            top = self.frames[-1]
            raise RuleError(f"sequences call each other more than {self.max_depth} deep (last: '{seq}' from '{top.seq}')",
                            self.programs[top.seq].code[min(top.pc, len(self.programs[top.seq].code) - 1)].span,
                            "a trigger or a call keeps starting itself")
        self.frame_counter += 1
        s = self.rs.sequences[seq]
        f = Frame(seq, s.kind, args if own else dict(args), self.frame_counter)
        self.frames.append(f)
        self.locals = f.locals
        if self.headers and s.kind in self.headers and self.listener is not None:
            self._header(s, f.locals)

    def _header(self, s, args: dict) -> None:
        """Tell the listener that a round, a turn (a sequence of a header kind) begins: not part of the story."""
        who = [v.name for v in args.values() if isinstance(v, Player)]
        title = s.title or s.id.replace("_", " ").capitalize()
        self.listener(Line(title + (f": {', '.join(who)}" if who else ""), kind="header",
                           level=self.headers.index(s.kind)))

    def say(self, text: str, only: Any = None, public: Optional[str] = None, kind: str = "event",
            level: int = 0) -> None:
        """Narrate a line; `only` (seats) may read it, everyone else reads `public` instead (see story.Line)."""
        if not self.story:
            return
        if "\n" in text or "\r" in text or (public is not None and ("\n" in public or "\r" in public)):
            text, public = one_line(text), (None if public is None else one_line(public))  # no forged lines
        line = Line(text, only, public, kind, level) if only is not None or kind != "event" else text
        self.narrative.append(line)
        if self.listener is not None:
            self.listener(line)

    # ------------------------------------------------------------------ reading state (used by compiled rules)
    def zone_cards(self, z: ZoneRef) -> list[Card]:
        try:
            return self.zones[z]  # only zone refs are keys: anything else misses
        except (KeyError, TypeError):
            pass
        if not isinstance(z, ZoneRef):
            raise RuleError(f"expected a zone, got {describe(z)}", None)
        raise RuleError(f"there is no zone {z.slot}", None)

    def family_zones(self, name: str) -> list[ZoneRef]:
        """The zones of a family, in order (callers copy the list: a fixed family's is kept and shared)."""
        fixed = self._families.get(name)
        if fixed is not None:
            return fixed
        zd = self.rs.zones[name]
        if zd.per == "dynamic":
            return [ZoneRef(name, i) for i in range(1, self.dynamic[name] + 1) if ZoneRef(name, i) in self.zones]
        if zd.per == "player":
            refs = [ZoneRef(name, p.seat) for p in self.players]
        else:
            refs = [ZoneRef(name, k) for k in zd.per]
        self._families[name] = refs
        return refs

    def family_member(self, name: str, key: Any, span: Span) -> ZoneRef:
        zd = self.rs.zones[name]
        if isinstance(key, Player):
            key = key.seat
        ref = ZoneRef(name, key)
        if ref not in self.zones:
            if zd.per == "dynamic":
                raise RuleError(f"'{name}' has no zone number {describe(key)}", span)
            keys = ", ".join(map(str, zd.per)) if isinstance(zd.per, tuple) else "players"
            raise RuleError(f"'{name}' has no zone for {describe(key)}", span, f"its keys: {keys}")
        return ref

    def zone_of(self, card: Card) -> ZoneRef:
        return self.where[card.index]

    def zone_owner(self, z: ZoneRef) -> Optional[Player]:
        zd = self.rs.zones.get(z.zone)
        if zd is not None and zd.per == "player":
            return self.players[z.key]
        return None

    def random_index(self, n: int) -> int:
        i = self.rng.below(n)
        self.chance.append(["pick", n, i])
        return i

    def modifier_total(self, name: str, player: Any = None) -> Any:
        seat = player.seat if isinstance(player, Player) else None
        return sum(m[2] for m in self.modifiers if m[0] == name and (m[1] is None or m[1] == seat))

    def running(self, kind: str) -> Optional[str]:
        for f in reversed(self.frames):
            if f.kind == kind:
                return f.seq
        return None

    def in_sequence(self, seq: str) -> bool:
        return any(f.seq == seq for f in self.frames)

    def set_mark(self, card: Card, name: str, value: Any) -> None:
        self.marks.setdefault(card.id, {})[name] = value

    # ------------------------------------------------------------------ changing state
    def _emit(self, event: str, fields: dict) -> None:
        if event in self.triggers:
            self._events.append((event, fields))

    def move(self, what: Any, dest: ZoneRef, place: str, span: Span, player: Any = None) -> None:
        cards = [what] if isinstance(what, Card) else as_list(self, what, span) if what is not None else []
        target = self._zone_list(dest, span)
        for c in cards:
            if not isinstance(c, Card):
                raise RuleError(f"only cards can be moved, not {describe(c)}", span)
            src = self.where[c.index]
            held = self.zones[src]
            if held and held[-1] is c:  # the top card (a draw, most moves): no search, no comparisons
                held.pop()
            else:
                held.remove(c)
            if place == "bottom":
                target.insert(0, c)
            else:
                target.append(c)
            self.where[c.index] = dest
            self._emit("moved", {"card": c, "source": src, "dest": dest, "player": player})

    def _zone_list(self, z: Any, span: Span) -> list[Card]:
        if not isinstance(z, ZoneRef):
            raise RuleError(f"expected a zone, got {describe(z)}", span,
                            "a family of zones needs a key, e.g. stocks['iron'] or p.hand")
        try:
            return self.zones[z]
        except KeyError:
            raise RuleError(f"there is no zone {z.slot}", span) from None

    def draw(self, count: Optional[int], src: ZoneRef, dest: Optional[ZoneRef], place: str, span: Span) -> Any:
        cards = self._zone_list(src, span)
        k = 1 if count is None else count
        taken = cards[-k:][::-1] if k else []
        for c in taken:
            if dest is not None:
                self.move(c, dest, place, span)
            self._emit("drawn", {"card": c, "source": src, "dest": dest, "player": None})
        if count is None:
            return taken[0] if taken else None
        return taken

    def shuffle(self, z: ZoneRef, span: Span) -> None:
        cards = self._zone_list(z, span)
        self.rng.shuffle(cards)
        self.chance.append(["shuffle", z.slot])
        self._emit("shuffled", {"zone": z})

    def reverse(self, z: ZoneRef, span: Span) -> None:
        self._zone_list(z, span).reverse()

    def emit(self, event: str, fields: dict, span: Span) -> None:
        self._emit(event, fields)

    def log(self, message: Any) -> None:
        self.say(text_of(message))

    def tell(self, player: Player, message: Any) -> None:
        """A line of the story for one player only."""
        self.say(f"To {player} only: {text_of(message)}", only=(player.seat,), kind="tell")

    def win(self, who: Any, span: Span) -> None:
        players = who if isinstance(who, list) else [who]
        if not all(isinstance(p, Player) for p in players):
            raise RuleError(f"'win' needs a player or a list of players, got {describe(who)}", span)
        self.winners = sorted({p.seat for p in players})

    def tally(self, metric: str, key: Any, value: Any, span: Span) -> None:
        """Add one value to a metric under a key (`tally` statements, and the metrics worked out at the end)."""
        if isinstance(value, bool):
            value = int(value)
        elif not isinstance(value, (int, float)):
            raise RuleError(f"a metric adds up numbers, got {describe(value)}", span)
        if not (key is None or isinstance(key, (bool, int, float, str))):
            if isinstance(key, (Player, Card, ZoneRef)):
                key = str(key)
            elif isinstance(key, list):
                key = text_of(key)
            else:
                raise RuleError(f"a metric is grouped by a number, text, a player or a card, got {describe(key)}", span)
        per_key = self.tallies.get(metric)
        if per_key is None:
            per_key = self.tallies[metric] = {}
        entry = per_key.get(key)
        if entry is None:
            per_key[key] = [1, value, value * value]
        else:
            entry[0] += 1
            entry[1] += value
            entry[2] += value * value

    def add_modifier(self, name: str, target: Any, value: Any, until: str, span: Span) -> None:
        if target is not None and not isinstance(target, Player):
            raise RuleError(f"a modifier applies to a player, not {describe(target)}", span)
        owner = None
        if until != "game":
            for f in reversed(self.frames):
                if f.kind == until:
                    owner = f.id
                    break
            else:
                raise RuleError(f"'until end of {until}': no {until} is running", span)
        self.modifiers.append([name, target.seat if target is not None else None, value, owner])

    def remove_modifier(self, name: str, target: Any) -> None:
        seat = target.seat if isinstance(target, Player) else None
        self.modifiers = [m for m in self.modifiers if not (m[0] == name and (target is None or m[1] == seat))]

    def create_zone(self, family: str, span: Span) -> ZoneRef:
        self.dynamic[family] += 1
        ref = ZoneRef(family, self.dynamic[family])
        self.zones[ref] = []
        return ref

    def roll(self, spec: Any, roller: Any, against: Any, span: Span) -> Any:
        frame = self.frames[-1]
        answer = frame.locals.pop(ANSWER, _MISSING)
        partial = frame.locals.get("__roll")
        if isinstance(spec, M.DiceDef):
            name, count, sides, results = spec.id, spec.count, spec.sides, spec.results
        else:
            (name, count, sides), results = spec, ()
        if partial is None or answer is True:
            if self.fixed_dice:  # a scenario's fixed results (`dice:`), in order, before the generator's
                faces = fixed_faces(self.fixed_dice.pop(0), name, count, sides)
                if isinstance(faces, str):
                    raise RuleError(faces, span)
            else:
                faces = tuple(1 + self.rng.below(sides) for _ in range(count))
            self.chance.append(["roll", name, list(faces)])
        else:
            faces = tuple(partial)
        named = None
        if results:
            saved = self.locals
            self.locals = {"faces": list(faces), "total": sum(faces), "doubles": len(set(faces)) == 1 and count > 1}
            try:
                named = next((r for r in results if r.when is not None and r.when.fn(self)), None)
            finally:
                self.locals = saved
        if named is not None and named.reroll == "optional" and answer is not False and isinstance(roller, Player):
            frame.locals["__roll"] = list(faces)
            shown = "+".join(map(str, faces))
            self.say(f"{roller} rolls {name}: {shown}={sum(faces)} {_exclaim(named.shown())}")
            self.pending = Decision(roller.seat, "yesno", f"rolled {shown} ({named.shown()}): roll again?", [True, False],
                                    default=False, node=str(span), purpose="reroll", number=self.decisions)
            return SUSPEND
        frame.locals.pop("__roll", None)
        outcome = named.outcome if named is not None else None
        if outcome == "success":
            success: Optional[bool] = True
        elif outcome == "failure":
            success = False
        elif against is not None:
            if isinstance(against, bool) or not isinstance(against, (int, float)):
                raise RuleError(f"a roll is made against a number, got {describe(against)}", span)
            success = sum(faces) >= against
        else:
            success = None
        r = Roll(name, faces, named.name if named else None, success, against)
        who = f"{roller} rolls" if isinstance(roller, Player) else "Roll"
        vs = "" if success is None else f"{f' against {against}' if against is not None else ''}: {'success' if success else 'failure'}"
        told = f"{'+'.join(map(str, faces))}={sum(faces)}" + (f" {_exclaim(named.shown())}" if named is not None else "")
        self.say(f"{who} {name}: {told}{vs}")
        self._emit("rolled", {"roll": r, "player": roller})
        return r

    # ------------------------------------------------------------------ views
    def view(self, seat: int) -> dict:
        """What one player may see: hidden zones only as counts, owner-only zones for their owner; variables
        declared 'hidden' not at all, player variables declared 'owner' only their player's."""
        from .state_io import encode

        zones: dict = {}
        for ref, cards in self.zones.items():
            vis = self.rs.zones[ref.zone].visibility
            owner = self.zone_owner(ref)
            if vis == "open" or (vis == "owner" and owner is not None and owner.seat == seat):
                zones[ref.slot] = [c.id for c in cards]
            elif vis == "top":
                zones[ref.slot] = {"count": len(cards), "top": cards[-1].id if cards else None}
            else:
                zones[ref.slot] = {"count": len(cards)}
        return {
            "you": seat,
            "players": [p.name for p in self.players],
            "zones": zones,
            "variables": {k: encode(v) for k, v in self.vars.items() if self.rs.variables[k].visibility != "hidden"},
            "player_variables": [{k: encode(v) for k, v in pv.items() if self._sees_pvar(seat, i, k)}
                                 for i, pv in enumerate(self.pvars)],
            "decision": self.pending.to_json() if self.pending and self.pending.player == seat else None,
        }

    def _sees_pvar(self, seat: int, owner: int, name: str) -> bool:
        vis = self.rs.player_variables[name].visibility
        return vis == "public" or (vis == "owner" and seat == owner)

    def check_cards(self) -> None:
        """Card conservation: every card lies in exactly one zone, where the game thinks it is."""
        seen: dict[int, ZoneRef] = {}
        for ref, cards in self.zones.items():
            for c in cards:
                if c.index in seen:
                    raise RuleError(f"card {c.id} is in both {seen[c.index].slot} and {ref.slot}", None)
                seen[c.index] = ref
                if self.where.get(c.index) != ref:
                    raise RuleError(f"card {c.id} is in {ref.slot} but recorded in {self.where.get(c.index)}", None)
        if len(seen) != len(self.rs.cards):
            missing = [c.id for c in self.rs.cards if c.index not in seen]
            raise RuleError(f"cards lost from every zone: {', '.join(missing[:5])}", None)

    def copy(self, story: bool = True) -> "Game":
        """An independent copy; `story=False` drops the narrative and coverage (cheaper, for rollouts)."""
        from .state_io import clone

        return clone(self, story)


def _exclaim(title: str) -> str:
    """A named dice result as the story tells it: 'Dabo!', 'Woot! Woot!' (not 'Woot! Woot!!')."""
    return title if title.endswith("!") else title + "!"


def _fresh(v: Any) -> Any:
    return list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v
