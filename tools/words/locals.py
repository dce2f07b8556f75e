"""What the names of a ruleset stand for in players' words: a local `p` is 'the player', a card drawn `as ev` is
'the card', a yes/no pick `go` is an answer, a game variable set once from the roll is that roll's total, a player
variable that holds yes or no is said as a state ('the player is alive'), not as a thing ('the alive of')."""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

from rulecraft.dsl import ast as A
from rulecraft.model import ruleset as M
from rulecraft.model.kinds import kind_of, own_statements

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
    asked: dict = field(default_factory=dict)  # yes/no name -> the decision that binds it (who answers)
    counted: dict = field(default_factory=dict)  # counter -> what it counts ('the number of rounds played')
    persons: set = field(default_factory=set)  # names some step sets to a player ('set first = next_player(first)')
    tallies: set = field(default_factory=set)  # plural names only ever set to 0 or added to ('tries')
    choices: dict = field(default_factory=dict)  # name -> (decision, step label) of a one-of choice ('as: act')
    # a for_each's variable -> {the sequence whose loop binds it: whether its list leaves that sequence's player out}
    loops_in: dict = field(default_factory=dict)
    passes: dict = field(default_factory=dict)  # a counted loop's counter -> its value at the first pass (1 or 0)


def _kind(w, e) -> str:
    """'player' or 'card' when an iterable clearly holds players or cards, else ''."""
    if e is None:
        return ""
    e = getattr(e, "ast", e)
    if isinstance(e, A.Name) and e.id == "players" or isinstance(e, A.Index) and _kind(w, e.obj) == "player":
        return "player"  # (one of them: 'players[0]')
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
    if isinstance(e, A.Ternary):  # 'X if cond else []': what X holds
        return _kind(w, e.then) or _kind(w, e.other)
    if isinstance(e, A.Call) and e.func in w.rs.functions:
        return _kind(w, w.rs.functions[e.func][1])
    if isinstance(e, A.Call) and e.func == "keys" and e.args and isinstance(e.args[0], A.Name):
        return row_noun(w, e.args[0].id)  # 'keys(harbors)': each harbor
    if isinstance(e, A.Call) and e.func in ("highest", "lowest") and e.args and isinstance(e.args[0], A.Compare) \
            and e.args[0].op == "in":
        return _kind(w, e.args[0].right)  # 'highest(q in players, by: ...)': one player
    return ""


def row_noun(w, table: str) -> str:
    """What one key of a table is called: its id made singular ('harbors' -> 'harbor'), '' when it is no plural."""
    if table not in w.rs.tables or not table.endswith("s") or table.endswith("ss") or "_" in table:
        return ""
    if table.endswith("ies"):
        return table[:-3] + "y"
    return table[:-2] if table.endswith(("xes", "ches", "shes", "sses")) else table[:-1]  # 'boxes': each box


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
    if isinstance(e, A.Attr) and e.name == "empty":  # a zone's own test, 'p.hand.empty', as 'empty(p.hand)'
        return True
    return isinstance(e, A.Call) and e.func in _TRUTHY


def _decision_noun(w, d: M.DecisionSpec) -> str:
    if d.kind == "number":
        return "number chosen"
    k = _kind(w, d.options)
    if d.kind == "subset":
        return f"{k}s chosen" if k else "ones chosen"
    return f"chosen {k}" if k else "choice"


def _stmts(s):
    for st in getattr(s, "stmts", ()):
        yield getattr(st, "ast", st)


_WORKED_OUT: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # ruleset -> its Locals


def local_info(w) -> Locals:
    """What each name of the ruleset stands for, from the steps that bind it, set it and read it: worked out once a
    ruleset (it reads the ruleset alone, and sheets make a Words for each chart they try, some 160 for dml).
    Callers read it and never change it."""
    info = _WORKED_OUT.get(w.rs)
    if info is None:
        info = _WORKED_OUT[w.rs] = _work_out(w)
    return info


def _work_out(w) -> Locals:
    info = Locals()
    rs = w.rs
    info.flags = {k for k, v in rs.player_variables.items() if isinstance(v.initial, bool)}
    if "out" not in rs.player_variables:
        info.flags.add("out")  # the built-in `p.out`: 'the player is out', never 'the player's out'
    info.predicates = {f for f, (_params, body) in rs.functions.items() if truthy(body)}
    sets: dict = {}

    def note(var, noun):
        if var and noun and (var not in info.nouns or info.nouns[var] == "chosen " + noun):
            info.nouns[var] = noun  # a name bound by a choice here and a loop there: the plain noun

    def expr(e):
        e = getattr(e, "ast", e)
        if isinstance(e, A.Comprehension):
            note(e.var, _kind(w, e.iterable))
        if isinstance(e, A.Node):
            for v in vars(e).values():
                for x in (v if isinstance(v, tuple) else (v,)):
                    if isinstance(x, A.Node):
                        expr(x)

    def decision(d, bind=None, label=""):
        if not isinstance(d, M.DecisionSpec):
            return
        name = bind or d.bind
        if name and d.kind == "yesno":
            info.answers.add(name)
            if d.player is not None:  # who answers: 'the player answers no'; two deciders under one name: nobody
                info.asked[name] = d if name not in info.asked else None
        elif name:
            note(name, _decision_noun(w, d))
        if name and d.kind == "one" and d.player is not None:  # two choices under one name: who chose is unknown
            info.choices[name] = (d, label) if name not in info.choices else None

    for _seq, s in rs.iter_steps():
        if (counted := counted_loop(rs, s)) is not None:  # 'Action {done} of 2' reads as its first: 'Action 1 of 2'
            info.passes[counted[0]] = counted[2]
        if getattr(s, "var", "") and getattr(s, "iterable", None) is not None:  # each item of a list, by name
            note(s.var, _kind(w, s.iterable))
            if isinstance(s, M.ForEachStep):
                info.loops_in.setdefault(s.var, {})[_seq.id] = _leaves_out(s.iterable, _seq.params)
            expr(s.iterable)
        kind = kind_of(s)
        if kind is not None and kind.decides == "mechanic" and getattr(s, "bind", None):  # secret picks' `as:`
            info.picks.add(s.bind)
        decision(getattr(s, "decision", None), label=s.label or "")
        decision(getattr(s, "play", None))
        if isinstance(s, M.ConstructStep):
            settings = dict(s.settings)
            note(settings.get("each") or ("q" if s.construct == "respond" else ""),
                 "responder" if s.construct == "respond" else "player")
            note(settings.get("bidder") or ("bidder" if s.construct == "auction" else ""), "bidder")
            if s.construct == "repeat_choice" and settings.get("as") and settings.get("options"):  # 'as: back'
                from rulecraft.dsl.parser import parse_expression, plain_locator

                k = _kind(w, parse_expression(str(settings["options"]), plain_locator()))
                note(settings["as"], f"chosen {k}" if k else "")
            if s.construct in ("auction", "respond"):
                info.results.add(settings.get("as") or ("auction" if s.construct == "auction" else "answer"))
        for st in _stmts(s):
            if isinstance(st, A.Draw) and st.bind:
                note(st.bind, "card" if st.count is None else "cards drawn")
            elif isinstance(st, A.Roll) and st.bind:
                note(st.bind, "roll")
            elif isinstance(st, A.Let) or isinstance(st, A.Assign) and isinstance(st.target, A.Name):
                name, op = (st.name, "=") if isinstance(st, A.Let) else (st.target.id, st.op)  # ('let caller = ...')
                sets.setdefault(name, []).append(st.value if op == "=" else None)
                if op == "=" and _kind(w, st.value) == "player":
                    info.persons.add(name)
            elif isinstance(st, A.CallSeq) and st.bind:
                note(st.bind, "result")
            elif isinstance(st, A.CreateZone) and st.bind:  # 'create zone in markets as m': the new market
                family = st.family.lower()
                one = family[:-3] + "y" if family.endswith("ies") else family[:-1] if family.endswith("s") else "place"
                note(st.bind, "new " + one.replace("_", " "))
            for x in vars(st).values():
                if isinstance(x, A.Node):
                    expr(x)
    for name, values in sets.items():
        if any(v is None for v in values) and all(v is None or isinstance(v, A.Num) and v.value == 0 for v in values) \
                and name.endswith("s") and not name.endswith("ss") and "_" not in name:
            info.tallies.add(name)  # 'let tries = 0 ... tries += 1': the number of tries
        if all(v is None for v in values):
            info.counters.add(name)
        elif len(values) == 1 and values[0] is not None:
            info.defs[name] = values[0]
    for seq in rs.sequences.values():
        _count_in(rs, seq, seq.steps, info)
    return info


_COUNTED_KINDS = ("round", "turn", "trick", "hand", "phase", "stage")


def _plural(noun: str) -> str:
    return noun + ("es" if noun.endswith(("s", "sh", "ch", "x")) else "s")


def _count_in(rs, seq, body, info: Locals) -> None:
    """What a counter counts, from where it goes up by one: beside a roll ('the number of rolls'), a card drawn,
    or a call of a round or turn ('the number of rounds played'), or at the top of a round's own steps."""
    stmts = {id(s): [x.ast for x in own_statements(s)] for s in body}
    for s in body:
        for st in stmts[id(s)]:
            if not (isinstance(st, A.Assign) and st.op == "+=" and isinstance(st.target, A.Name)
                    and st.target.id in info.counters and isinstance(st.value, A.Num) and st.value.value == 1):
                continue
            beside = [x for sib in body for x in stmts[id(sib)]]
            calls = [rs.sequences[c.ast.sequence] for x in body if getattr(kind_of(x), "call", False)
                     for c in own_statements(x) if c.ast.sequence in rs.sequences]
            what = ""
            if any(isinstance(x, A.Roll) for x in beside):
                what = "the number of rolls"
            elif any(isinstance(x, A.Draw) and x.count is None for x in beside):
                what = "the number of cards drawn"
            elif len(calls) == 1:
                what = f"the number of {_plural(_seq_noun(calls[0]))} played"
            elif body is seq.steps and seq.kind in _COUNTED_KINDS:
                what = f"the number of {_plural(seq.kind)} played"
            name = st.target.id
            if what and info.counted.get(name, what) == what:
                info.counted[name] = what
            elif what:  # counted in two ways: no one noun
                info.counted[name] = ""
    for s in body:
        for _n, inner in s.bodies:
            _count_in(rs, seq, inner, info)


def _seq_noun(seq) -> str:
    """A sequence as a counted noun: its kind when that is one ('round'), else its title in lower case."""
    if seq.kind in _COUNTED_KINDS:
        return seq.kind
    return (seq.title or seq.id).replace("_", " ").lower()


def local_nouns(w) -> dict:
    """Local name -> its noun (kept for callers that want the nouns alone)."""
    return local_info(w).nouns


def _names_in(node, out: list) -> list:
    """The names a sentence reads, in order: an expression's or statement's, or a step's own (not its blocks')."""
    node = getattr(node, "ast", node)
    if isinstance(node, A.Node):
        # a name a list runs over inside the sentence reads 'each player': it is no second person
        inner = {n.var for n in node.walk() if isinstance(n, A.Comprehension)}
        for n in node.walk():
            v = n.id if isinstance(n, A.Name) else getattr(n, "bind", None)
            if isinstance(v, str) and v and v not in out and v not in inner:
                out.append(v)
    elif isinstance(node, M.Step) or isinstance(node, M.DecisionSpec):
        for f in ("var", "bind"):
            v = getattr(node, f, None)
            if isinstance(v, str) and v and v not in out:
                out.append(v)
        for k, v in vars(node).items():
            if k in ("body", "then", "else_", "otherwise") or isinstance(v, M.Step):
                continue
            for x in (v if isinstance(v, tuple) else (v,)):
                if isinstance(x, (A.Node, M.CExpr, M.CStmt, M.DecisionSpec)):
                    _names_in(x, out)
    return out


def distinct_readings(w, node) -> dict:
    """Two different locals that would read the same in one sentence ('p' and 'player', both 'the player'): the
    one that is a sequence's parameter (the person the sequence is about) keeps its reading, the other reads
    'the other player' (a third 'the third player'). Returns name -> its reading in this sentence."""
    rs = w.rs
    params = {p for seq in rs.sequences.values() for p in seq.params}
    named = (rs.variables, rs.zones, rs.tables, rs.parameters, rs.options, rs.sequences, rs.functions, rs.dice)
    groups: dict = {}
    for ident in _names_in(node, []):
        if ident in ("players", "player_count") or any(ident in t for t in named):
            continue
        said = w.local(ident)
        if said.startswith("the ") and " " not in said[4:]:
            groups.setdefault(said, []).append(ident)
    out = {}
    for said, idents in groups.items():
        if len(idents) == 1 and (alone := _shadows_a_parameter(w, idents[0], said, params)):
            out[idents[0]] = alone
        if len(idents) < 2:
            continue
        first = next((i for i in idents if i in params), idents[0])
        others = [i for i in idents if i != first]
        for k, ident in enumerate(others):
            out[ident] = said.replace("the ", "the other " if k == 0 else f"the {_NTH[min(k, len(_NTH) - 1)]} ", 1)
    return out


_NTH = ["other", "third", "fourth", "fifth", "next"]


def _shadows_a_parameter(w, ident: str, said: str, params: set) -> str:
    """A loop's variable alone in its sentence that reads like the person its sequence is about: in a turn of
    `player`, `for_each q in ...: set q.position = 0` said 'Set the player's Space to 0' read as the turn's own
    player. Where every sequence that loops over the name has such a parameter, its reading: 'the other player'
    where the list leaves that player out, else 'each player' (the loop may come to them too); '' otherwise."""
    seqs = w.info.loops_in.get(ident)
    if not seqs or ident in params or not said.startswith("the "):
        return ""
    rs = w.rs
    if not all(any(p != ident and w.local(p) == said for p in rs.sequences[s].params) for s in seqs):
        return ""
    return said.replace("the ", "the other " if all(seqs.values()) else "each ", 1)


def _leaves_out(e, params) -> bool:
    """Whether a loop's list leaves out the person the sequence is about: `seat_order(player, include_start:
    false)`, or a comprehension whose condition says `q != player`."""
    e = getattr(e, "ast", e)
    if e is None:
        return False
    for n in e.walk():
        if isinstance(n, A.Call) and n.func == "seat_order" and n.args and isinstance(n.args[0], A.Name) \
                and n.args[0].id in params and any(k.name == "include_start" and isinstance(k.value, A.Const)
                                                   and k.value.value is False for k in n.kwargs):
            return True
        if isinstance(n, A.Compare) and n.op == "!=" and any(isinstance(x, A.Name) and x.id in params
                                                            for x in (n.left, n.right)):
            return True
    return False


def counted_times(w, s: M.LoopStep) -> str:
    """How many times a loop counted by a variable of its own runs ('repeat: done += 1 ... until done >= actions':
    'do this 2 times', not 'repeat until the done is at least 2'); '' for any other loop."""
    counted = counted_loop(w.rs, s)
    if not counted:
        return ""
    stops = any(isinstance(n, A.Break) for t in M.walk_steps(s.body) for st in own_statements(t) for n in st.ast.walk())
    return ("up to " if stops else "") + w.expr(counted[1])  # a loop it may leave early: 'up to 2 times'


def counted_loop(rs, s: M.LoopStep):
    """(the counter, how many times) of a loop whose counter starts at 0, goes up by 1 in the loop's own steps alone
    and is only ever set back to 0, with the count it asked at its first pass (1 when it goes up first); else None."""
    cond = getattr(getattr(s, "cond", None), "ast", None)
    if not (isinstance(s, M.LoopStep) and isinstance(cond, A.Compare) and isinstance(cond.left, A.Name)
            and (cond.op, s.mode) in ((">=", "until"), ("==", "until"), ("<", "while"))):
        return None
    x, mine = cond.left.id, {id(t) for t in M.walk_steps(s.body)}
    ups = 0
    for _seq, step in rs.iter_steps():
        for st in (n for t in own_statements(step) for n in t.ast.walk()):
            if isinstance(st, A.Assign) and isinstance(st.target, A.Name) and st.target.id == x:
                up = st.op == "+=" and isinstance(st.value, A.Num) and st.value.value == 1 and id(step) in mine
                if not (up or st.op == "=" and isinstance(st.value, A.Num) and st.value.value == 0):
                    return None
                ups += up
    v = rs.variables.get(x)
    if ups != 1 or (v is not None and v.initial != 0):
        return None
    first = any(isinstance(n, A.Assign) and getattr(n.target, "id", "") == x
                for t in own_statements(s.body[0]) for n in t.ast.walk()) if s.body else False
    return x, cond.right, int(first)
