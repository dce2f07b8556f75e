"""What the names of a ruleset stand for in players' words: a local `p` is 'the player', a card drawn `as ev` is
'the card', a yes/no pick `go` is an answer, a game variable set once from the roll is that roll's total, a player
variable that holds yes or no is said as a state ('the player is alive'), not as a thing ('the alive of')."""

from __future__ import annotations

from dataclasses import dataclass, field

from rulecraft.dsl import ast as A
from rulecraft.model import ruleset as M

_PLAYERS = ("seat_order", "others", "next_player", "owner")

# short words a designer may well name a value by: read as themselves, not as an abbreviation
_SHORT_WORDS = frozenset("""
ace act age aim ante arm art bag bar bet bid bin box bus cap cup cut day debt deal die dot due egg end fee fig fog
fund gap gas gem god gold gun hat hit hut ice ink inn jar jet job key kid kit law leg lid log lot man map mob net
odd oil ore owl pan pay pen pet pie pig pin pit pot rat ray rib rod row rug run sea set sky son spy sum sun tax
tea tie tin tip toe ton top toy tug van war way web win wit yak zoo one two six ten hand card deck coin gold
""".split())


def abbreviation(ident: str) -> bool:
    """A name players cannot read as a word: two or three letters that are no short word ('ev', 'rnd', 'got'),
    or a word with no vowel ('cnt', 'tmp')."""
    word = ident.lower().strip("_")
    if "_" in word or not word.isalpha():
        return False
    return (len(word) <= 3 and word not in _SHORT_WORDS) or not any(v in word for v in "aeiouy")


@dataclass
class Locals:
    nouns: dict = field(default_factory=dict)  # name -> noun ('player', 'card', 'roll', 'chosen card')
    answers: set = field(default_factory=set)  # names bound to a yes/no decision
    picks: set = field(default_factory=set)  # names bound to a sealed decision: picks[p] is a player's pick
    results: set = field(default_factory=set)  # names bound to an auction's or a response window's result
    defs: dict = field(default_factory=dict)  # name -> the one expression it is ever set to
    counters: set = field(default_factory=set)  # names only ever added to or taken from
    flags: set = field(default_factory=set)  # player variables that hold yes or no
    predicates: set = field(default_factory=set)  # functions that give yes or no


def _kind(w, e) -> str:
    """'player' or 'card' when an iterable clearly holds players or cards, else ''."""
    if e is None:
        return ""
    e = getattr(e, "ast", e)
    if isinstance(e, A.Name) and e.id == "players":
        return "player"
    if isinstance(e, A.Call) and e.func in _PLAYERS:
        return "player"
    if isinstance(e, A.Call) and e.func in ("cards", "top", "bottom"):
        return "card"
    if isinstance(e, A.Comprehension):
        return _kind(w, e.iterable)
    if isinstance(e, A.Name) and e.id in w.rs.zones:
        return "card"
    if isinstance(e, A.Attr) and e.name in w.rs.zones:
        return "card"
    if isinstance(e, A.BinOp) and e.op == "+":
        return _kind(w, e.left) or _kind(w, e.right)
    if isinstance(e, A.Call) and e.func in w.rs.functions:
        return _kind(w, w.rs.functions[e.func][1])
    return ""


_TRUTHY = ("empty", "any", "all", "in_sequence")


def truthy(e) -> bool:
    """An expression that gives yes or no (a comparison, a test of class, and/or/not of those)."""
    e = getattr(e, "ast", e)
    if isinstance(e, (A.Compare, A.IsClass)):
        return True
    if isinstance(e, A.Const):
        return isinstance(e.value, bool)
    if isinstance(e, A.Unary) and e.op == "not":
        return True
    if isinstance(e, A.BinOp) and e.op in ("and", "or"):
        return truthy(e.left) and truthy(e.right)
    return isinstance(e, A.Call) and e.func in _TRUTHY


def _decision_noun(w, d: M.DecisionSpec) -> str:
    if d.kind == "number":
        return "number chosen"
    k = _kind(w, d.options)
    if d.kind == "subset":
        return f"{k}s chosen" if k else "choice"
    return f"chosen {k}" if k else "choice"


def _stmts(s):
    for st in getattr(s, "stmts", ()):
        yield getattr(st, "ast", st)


def local_info(w) -> Locals:
    """What each name of the ruleset stands for, from the steps that bind it, set it and read it."""
    info = Locals()
    rs = w.rs
    info.flags = {k for k, v in rs.player_variables.items() if isinstance(v.initial, bool)}
    info.predicates = {f for f, (_params, body) in rs.functions.items() if truthy(body)}
    sets: dict = {}

    def note(var, noun):
        if var and noun and var not in info.nouns:
            info.nouns[var] = noun

    def expr(e):
        e = getattr(e, "ast", e)
        if isinstance(e, A.Comprehension):
            note(e.var, _kind(w, e.iterable))
        if isinstance(e, A.Node):
            for v in vars(e).values():
                for x in (v if isinstance(v, tuple) else (v,)):
                    if isinstance(x, A.Node):
                        expr(x)

    def decision(d, bind=None):
        if not isinstance(d, M.DecisionSpec):
            return
        name = bind or d.bind
        if name and d.kind == "yesno":
            info.answers.add(name)
        elif name:
            note(name, _decision_noun(w, d))

    for _seq, s in rs.iter_steps():
        if isinstance(s, (M.ForEachStep, M.SealedStep)):
            note(s.var, _kind(w, s.iterable))
            expr(s.iterable)
        if isinstance(s, M.SealedStep) and s.bind:
            info.picks.add(s.bind)
        decision(getattr(s, "decision", None))
        decision(getattr(s, "play", None))
        if isinstance(s, M.ConstructStep):
            settings = dict(s.settings)
            note(settings.get("each") or ("q" if s.construct == "respond" else ""),
                 "responder" if s.construct == "respond" else "player")
            note(settings.get("bidder") or ("bidder" if s.construct == "auction" else ""), "bidder")
            if s.construct in ("auction", "respond"):
                info.results.add(settings.get("as") or ("auction" if s.construct == "auction" else "answer"))
        for st in _stmts(s):
            if isinstance(st, A.Draw) and st.bind:
                note(st.bind, "card" if st.count is None else "cards drawn")
            elif isinstance(st, A.Roll) and st.bind:
                note(st.bind, "roll")
            elif isinstance(st, A.Let):
                sets.setdefault(st.name, []).append(st.value)
            elif isinstance(st, A.Assign) and isinstance(st.target, A.Name):
                sets.setdefault(st.target.id, []).append(st.value if st.op == "=" else None)
            elif isinstance(st, A.CallSeq) and st.bind:
                note(st.bind, "result")
            for x in vars(st).values():
                if isinstance(x, A.Node):
                    expr(x)
    for name, values in sets.items():
        if all(v is None for v in values):
            info.counters.add(name)
        elif len(values) == 1 and values[0] is not None:
            info.defs[name] = values[0]
    return info


def local_nouns(w) -> dict:
    """Local name -> its noun (kept for callers that want the nouns alone)."""
    return local_info(w).nouns
