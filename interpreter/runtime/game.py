"""A running game: its state as plain data, and the primitive operations the compiled rules call.

The game is driven from outside: it runs until a player must decide, exposes that
`pending` decision, and continues when `apply(choice)` is called. The instruction loop
itself lives in `machine/interpreter.py`; what the rules read and change on the table is in `board.py`.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from ..diagnostics import RuleError
from ..model import ruleset as M
from ..model import secrecy
from ..values import Card, Player, ZoneRef
from .decisions import Decision, IllegalChoice
from .board import Board
from .codec import copy_value
from .knowledge import copy_known, seat_view
from .story import Line, one_line
from ..compiler import expressions
from .machine import setup
from .machine.answers import Bots, answer, pick_of, taken
from .machine.decision_steps import resume_of
from .machine.interpreter import run
from .machine.plans import TABLES
from .machine.invariants import check_cards, check_invariants
from .machine.program import Frame, Program, covered  # noqa: F401 - Frame is read here by state_io
from .rng import SplitMix


class GameError(Exception):
    """A game cannot start or go on; carries the diagnostic-ready RuleError when there is one."""

    def __init__(self, message: str, rule_error: RuleError | None = None):
        super().__init__(message)
        self.rule_error = rule_error


ENGINES = ("compiled", "reference")  # the ways a game can run (Game's `engine`); the first is the default


def programs_for(rs: M.Ruleset) -> dict[str, Program]:
    return setup.tables(rs).programs


class Game(Board):
    # A game's state in slots, not a dict: the running code reads and writes a game's attributes more than anything
    # else, and a slot costs less to reach than a key of an instance dict this large (past the ~30 keys CPython
    # shares between instances, each read goes through a dict lookup). A new attribute of a game is named here.
    __slots__ = ("_dynamic", "_events", "_families", "_player_zones", "begun", "bots", "chance",
                 "check_conservation", "compiled", "counts", "decisions", "drawn", "dynamic", "engine", "fixed_dice",
                 "frame_counter", "frames", "gates", "halt_depth", "headers", "known", "listener",
                 "locals", "marks", "max_depth", "max_steps", "moved_to", "narrative", "nodes", "orderless", "over",
                 "pending", "plans", "players", "programs", "pvars", "reached", "rng", "rolled", "rs", "rule_error",
                 "scores", "seed", "steps", "story", "tallies", "triggers", "vars", "where", "work", "zones",
                 "__weakref__")
    bots: Optional[Bots]  # the agents asked in the running code while `play` plays the game
    work: int  # units of work counted against the step budget (guards.charge)
    fixed_dice: Optional[list]  # results the next rolls give instead of the generator (scenarios' `dice:`)

    def __init__(self, ruleset: M.Ruleset, players: int | None = None, seed: int = 0, *,
                 names: list[str] | None = None, max_steps: int = 5_000_000, max_depth: int = 400,
                 check_conservation: bool = False, listener: Callable[[str], None] | None = None,
                 coverage: bool = False, start: bool = True, story: bool = True, headers: tuple = (),
                 engine: str = "compiled"):
        rs = ruleset
        if engine not in ENGINES:
            raise GameError(f"no engine '{engine}': one of {', '.join(ENGINES)}")
        n = rs.players.default if players is None else players
        if not rs.players.min <= n <= rs.players.max:
            raise GameError(f"{rs.title} is for {rs.players.min} to {rs.players.max} players, not {n}")
        self.rs = rs
        self.bots = None
        self.work = 0
        self.fixed_dice = None
        made = setup.tables(rs)
        self.programs = made.programs
        self.seed = seed
        if names:
            self.players = [Player(i, (names[i] if i < len(names) else f"P{i + 1}")) for i in range(n)]
        else:  # (players never change: those of the default names are made once per count)
            made_players = _PLAYERS.get(n)
            if made_players is None:
                made_players = _PLAYERS[n] = tuple(Player(i, f"P{i + 1}") for i in range(n))
            self.players = list(made_players)
        self.rng = SplitMix(seed)
        self.max_steps = max_steps
        self.max_depth = max_depth
        self.check_conservation = check_conservation
        # the compiled engine runs the stretches of steps it visits often as generated Python; the reference engine
        # runs every step by the instruction loop and the closures: the oracle the compiled one is compared with
        self.engine = engine
        self.compiled = engine == "compiled"
        self.plans = TABLES[self.compiled]  # its engine's plans of decision specs (machine/plans.py), by id(spec)
        self.listener = listener
        self.nodes, self.reached = made.nodes, list[int]()  # coverage: counts by node number, nodes as reached
        self.counts: Optional[list] = [0] * len(made.nodes) if coverage else None
        self.zones: dict[ZoneRef, list[Card]] = {}
        self.where: dict[int, ZoneRef] = {}
        self.dynamic: dict[str, int] = {}
        self.vars: dict[str, Any] = {}
        self.pvars: list[dict[str, Any]] = list(map(dict.copy, [_EMPTY] * n))  # (n empty dicts, made in C)
        self.marks: dict[str, dict[str, Any]] = {}
        self.known: dict[int, dict[int, tuple]] = {}  # seat -> the cards it was shown (knowledge.py)
        self.modifiers: list[list] = []  # [name, seat or None, value, frame id or None]
        self.lapsing = False  # some modifier lasts 'until next KIND': a sequence that starts may end it (push)
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
        self._dynamic: dict[str, tuple] = {}  # and of each dynamic family, while it stays as it was (family_zones)
        # read by every game of the ruleset and changed by none: shared (_Tables)
        self._player_zones = made.player_zones
        self.orderless = made.orderless
        self.triggers: dict[str, list[M.Trigger]] = made.triggers
        self.gates, self.moved_to, self.drawn, self.rolled = made.gates, made.moved_to, made.drawn, made.rolled
        self.begun = False  # set up (`_setup`): a game made with start=False is started by `play`
        if start:
            self._begin()

    # ------------------------------------------------------------------ set-up
    def _begin(self) -> None:
        """Set the game up, start its first sequence and run it to the first decision (or the end)."""
        self._setup()
        self.push(self.rs.start, {})
        run(self)

    def _setup(self) -> None:
        self.begun = True
        if setup.given(self):  # what set-up made in an earlier game, copied where it is the same (machine/setup.py)
            return
        before = setup.before(self)
        self._set_up()
        setup.keep(self, before)

    def _set_up(self) -> None:
        """The zones, their first cards, the variables."""
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
        # cards of groups whose count reads player_count, beyond this game's count: out of the game, in no zone
        absent = self.absent  # (worked out once: a property)
        placed: set[int] = set(absent)
        for z in rs.zones.values():
            if z.initial is not None and z.per is not None:
                msg = f"zone '{z.id}' is a family of zones (per: {z.per if isinstance(z.per, str) else 'keys'}), so it cannot hold the initial cards"
                raise GameError(msg, RuleError(msg, z.span, "give 'initial' to a single zone and deal with steps"))
            if isinstance(z.initial, M.CExpr):
                value = z.initial.fn(self)
                ref = ZoneRef(z.id)
                into, where = self.zones[ref], self.where
                for c in value if isinstance(value, list) else [value]:
                    if isinstance(c, Card) and c.index in absent:
                        continue  # not in a game of this many players
                    if not isinstance(c, Card) or c.index in placed:
                        raise GameError(f"zone '{z.id}': its initial cards are not a list of distinct cards")
                    placed.add(c.index)
                    into.append(c)
                    where[c.index] = ref
        rest = [z for z in rs.zones.values() if z.initial == "all"]
        if rest:
            ref = ZoneRef(rest[0].id)
            cards = [c for c in rs.cards if c.index not in placed] if placed else rs.cards
            self.zones[ref].extend(cards)
            where = self.where
            for c in cards:
                where[c.index] = ref
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
        value = d.take(wire)  # (IllegalChoice, the game unchanged, for an answer it does not take)
        f = self.frames[-1]
        resume = d.resume
        if resume is None:  # a decision restored from a saved state: the step at the game's position asked it
            how = resume_of(self, f, d)
            if how is None:
                raise GameError("the game's position is not the step that asks its pending decision (an edited state)")
            resume, d.held = how
            d.resume = resume
        taken(self, d, value)  # (R002 here when the budget is spent)
        # the step that asked goes on with the answer
        self.locals = f.locals
        ins = self.programs[f.seq].code[f.pc]
        resume(self, f, d, value)
        if self.check_conservation:  # as the step loop checks after a step
            self.check_cards()
            if self.rs.invariants:
                check_invariants(self, ins)
        if self.pending is None:
            run(self)

    def play(self, agents: Sequence[Any], views: bool | Sequence[bool] = True, decisions: Optional[int] = None) -> None:
        """Play on with `agents[seat]` answering each seat's decisions, until the game is over (or `decisions` more
        decisions are taken): as a loop of `apply(agent.choose(pending, view))` would, the same game seed for
        seed, but a bot's answer is given where the decision is asked and its step goes on at once, without the
        game returning here in between (runtime/machine/answers.py). An agent that `needs_game` (a search bot)
        is asked here, between two runs, with the game (`answers.answer`). `views`: whether an agent is handed its
        seat's view (`view(seat)`) or None, for all seats or per seat. An agent's error, or an answer that is not
        legal (IllegalChoice), is raised here with the decision still pending, as `apply` raises it. A game made
        with `start=False` (and not set up since) is started here, its first decision answered as the others.
        A state restored from JSON (state_io.from_json) plays on from where it stands."""
        n = len(self.players)
        seen = [views] * n if isinstance(views, bool) else [bool(v) for v in views]
        # (an agent's pick, answers.pick_of, answers without a Decision: not in a game that tells its decisions)
        bots = Bots([None if getattr(a, "needs_game", False) else a.choose for a in agents], seen, decisions,
                    None if self.story else [pick_of(a) for a in agents])
        self.bots = bots
        try:
            if not self.begun and not self.frames and not self.over and self.pending is None:
                self._begin()  # a game made with start=False: its first decision too is asked in the running code
            while True:
                failed = bots.failed
                if failed is not None:
                    bots.failed = None
                    raise failed
                if self.over or bots.left == 0:
                    return
                d = self.pending
                assert d is not None  # (a game that is not over waits for a decision)
                seat = d.player
                wire = answer(agents[seat], d, self.view(seat) if seen[seat] else None, self)
                if bots.left is not None:
                    bots.left -= 1
                self.apply(wire)
        finally:
            self.bots = None

    def written(self, fn: Callable) -> Callable:
        """What a game of the compiled engine runs for a whole expression once it is hot (dsl/closures/whole.py):
        the function the compiler writes of it, or its closure when it cannot be written."""
        got = expressions.written(fn)
        return fn.closure if got is None else got[2]  # type: ignore[attr-defined]

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
        if self.lapsing:
            self._lapse_next(s.kind, f.locals)
        if self.headers and s.kind in self.headers and self.listener is not None and secrecy.header_told(self.rs, seq):
            self._header(self.listener, s, f.locals)

    def _lapse_next(self, kind: str, args: dict) -> None:
        """A sequence of `kind` starts: the modifiers 'until next KIND' on a player among its arguments (or on
        everyone) lapse."""
        until = "next " + kind
        mods = self.modifiers
        if any(m[3] == until for m in mods):
            seats = {v.seat for v in args.values() if isinstance(v, Player)}
            self.modifiers = mods = [m for m in mods if not (m[3] == until and (m[1] is None or m[1] in seats))]
        self.lapsing = any(m[3].__class__ is str for m in mods)

    def _header(self, listener: Callable[[str], None], s, args: dict) -> None:
        """Tell the listener that a round, a turn (a sequence of a header kind) begins: not part of the story."""
        who = [v.name for v in args.values() if isinstance(v, Player)]
        title = s.title or s.id.replace("_", " ").capitalize()
        listener(Line(title + (f": {', '.join(who)}" if who else ""), kind="header",
                           level=self.headers.index(s.kind)))

    def say(self, text: str, only: Any = None, public: Optional[str] = None, kind: str = "event",
            level: int = 0, forced: Any = None) -> None:
        """Narrate a line; `only` (seats) may read it, everyone else reads `public` instead (see story.Line); `forced`:
        the decision whose only answer it tells."""
        if not self.story:
            return
        if "\n" in text or "\r" in text or (public is not None and ("\n" in public or "\r" in public)):
            text, public = one_line(text), (None if public is None else one_line(public))  # no forged lines
        line = Line(text, only, public, kind, level, forced) if only is not None or kind != "event" else text
        self.narrative.append(line)
        if self.listener is not None:
            self.listener(line)

    # ------------------------------------------------------------------ views
    def view(self, seat: int) -> dict:
        """What one player may see (knowledge.seat_view; model/secrecy.py decides)."""
        return seat_view(self, seat)

    def _sees_pvar(self, seat: int, owner: int, name: str) -> bool:
        return secrecy.sees_player_variable(self.rs, name, seat, owner)

    # how often each node of the sequence graph ran, in the order first reached (a new dict), None if not counted
    coverage = property(lambda g: None if g.counts is None else covered(g.nodes, g.counts, g.reached))

    @property
    def absent(self) -> frozenset:
        """The cards out of this game: of groups whose count reads player_count, beyond this many players' count."""
        cp = self.rs.card_players
        return frozenset(i for i, counts in cp.items() if len(self.players) not in counts) if cp else frozenset()

    def check_cards(self) -> None:
        """Card conservation: every card lies in exactly one zone, where the game thinks it is (RuleError if not)."""
        check_cards(self)

    def copy(self, story: bool = True) -> "Game":
        """An independent copy of a running game (immutable parts shared), e.g. for a bot's rollouts.

        `story=False` leaves the narrative and the coverage counts behind (rollouts need neither,
        and copying them grows with the game)."""
        g = self
        c = Game.__new__(Game)
        for name in _STATE:
            if hasattr(g, name):
                setattr(c, name, getattr(g, name))
        c.rng = type(g.rng)(0)
        c.rng.state = g.rng.state
        c.zones = {r: list(cards) for r, cards in g.zones.items()}
        c.where = dict(g.where)
        c.dynamic = dict(g.dynamic)
        c._dynamic = {}
        c.vars = copy_value(g.vars)
        c.pvars = [copy_value(pv) for pv in g.pvars]
        c.marks = {k: dict(m) for k, m in g.marks.items()}
        c.known = copy_known(g.known)
        c.modifiers = [list(m) for m in g.modifiers]
        c.lapsing = g.lapsing
        c.tallies = {m: {k: list(v) for k, v in per_key.items()} for m, per_key in g.tallies.items()}
        frames = []
        for f in g.frames:
            nf = Frame(f.seq, f.kind, copy_value(f.locals), f.id)
            nf.pc, nf.sub, nf.deferred, nf.mods = f.pc, f.sub, list(f.deferred), f.mods
            frames.append(nf)
        c.frames = frames
        c.locals = frames[-1].locals if frames else {}
        c.narrative = list(g.narrative) if story else []
        c.story = g.story and story
        c.chance = list(g.chance)
        if g.fixed_dice:  # a scenario's fixed dice: a copy, so a rollout does not use up the original's
            c.fixed_dice = list(g.fixed_dice)
        c._events = list(g._events)
        c.counts, c.reached = (None, []) if g.counts is None or not story else (list(g.counts), list(g.reached))
        c.listener = None
        c.bots = None  # (a copy made by a bot of a game playing itself plays only as its own caller drives it)
        c.pending = g.pending
        return c


_PLAYERS: dict[int, tuple[Player, ...]] = {}  # by count: the players of the default names
_EMPTY: dict = {}  # never changed: copied for each player's variables before set-up


def _fresh(v: Any) -> Any:
    return list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v


# every attribute a game holds (its slots and its board's), which `Game.copy` copies
_STATE = tuple(name for cls in Game.__mro__ for name in cls.__dict__.get("__slots__", ()) if name != "__weakref__")
