"""Names the order of play reads that no declaration titles, defined for the Words box: a sequence's parameters
('the auctioneer': who its callers pass) and a card a labelled step draws and names ('Turn up the top lot': the
lot). A first table met gavel-hall's 'auctioneer' and 'lot' in the aid's words and found neither defined."""

from __future__ import annotations

import re

from rulecraft.dsl import ast as A
from rulecraft.model import ruleset as M
from rulecraft.model.kinds import own_statements
from rulecraft.tools.chart.sheetplan import designer_label
from rulecraft.tools.words.core import Words, capital
from rulecraft.tools.words.locals import abbreviation


GENERIC = frozenset({"card", "cards", "player", "players", "one", "roll", "choice", "answer"})  # words that say themselves


def _word(ident: str) -> str:
    return "" if abbreviation(ident) or len(ident) < 3 or ident.lower() in GENERIC else ident.replace("_", " ")


def named_terms(rs: M.Ruleset, w: Words) -> list[tuple[str, str]]:
    """The parameters and the cards named by a label that the Words box may define."""
    return parameter_terms(rs, w) + card_terms(rs, w) + let_terms(rs, w) + count_terms(rs, w) + out_terms(rs) \
        + function_terms(rs) + place_terms(rs)


_COMMON_PLACES = frozenset({"deck", "hand", "discard", "pile", "table", "trick", "supply", "market", "bank", "pot",
                            "board", "tableau", "reserve", "draw", "stock", "kitty", "played"})  # say themselves


def place_terms(rs: M.Ruleset) -> list[tuple[str, str]]:
    """A place a designer's label names by its id ('until the row is empty') whose title says what it is in more than
    a name ('Cards dealt face down for bidding (first dealt at the bottom)'): dune's row, met and never defined. A
    title of a few words is only another name ('deck' titled 'Draw pile'): the id met in the words is then the
    common word, and no term."""
    out = []
    for zid, z in rs.zones.items():
        word = _word(zid)
        if word and word.lower() not in _COMMON_PLACES and z.title and not z.title.endswith("(setup)") and len(z.title.split()) > 3 \
                and word.lower() not in z.title.lower():
            out.append((capital(word), z.title + (". " + z.doc if z.doc else "")))
    return out


def out_terms(rs: M.Ruleset) -> list[tuple[str, str]]:
    """What being out means, where the rules put players out (`add modifier out to p until end of game`): every order
    of play passes over them (docs/language.md, Players out). Cold reads of ember-ring and mill-row: 'they are out',
    'is out until the end of the round', and no page said what an out player still does."""
    until = {n.until for _seq, s in rs.iter_steps() for st in own_statements(s) for n in st.ast.walk()
             if isinstance(n, A.AddModifier) and n.modifier == "out" and not n.next}
    ends = {"game": "to the end of the game", "round": "until the round ends", "turn": "until the turn ends"}
    said = [ends[u] for u in ("round", "turn", "game") if u in until]
    if not said:
        return []
    return [("Out", "A player who is out takes no more part in play " + (said[0] if len(said) == 1 else ", or ".join(
        said[:-1]) + ", or " + said[-1] + ", as the rule that puts them out says") + ": play passes over them")]


def function_terms(rs: M.Ruleset) -> list[tuple[str, str]]:
    """A function of one plain word the rules call with nothing ('eligible()': 'the eligible players'), with a doc and
    no title, that scoring does not read (How to win explains those): dune's 'Deal one card face down per eligible
    player' left 'eligible' unsaid."""
    sc = rs.scoring
    scored = {n.func for e in ([sc.score, *sc.tie_break] if sc is not None and sc.score is not None else [])
              for n in e.ast.walk() if isinstance(n, A.Call)}
    return [(capital(f), doc) for f, doc in rs.function_docs.items() if doc and not rs.titles.get(f) and f not in scored
            and f.isalpha() and _word(f) and not rs.functions[f][0]]


def count_terms(rs: M.Ruleset, w: Words) -> list[tuple[str, str]]:
    """A titled count each player keeps, with no doc, that the steps only ever add a number to, that the score or
    a tie-break reads ('Turns: each player's count; it goes up by 1 at “Discard what you played and draw five”'):
    honour-road's tie went 'to the player with the fewest Turns' and no page said what Turns are."""
    sc = rs.scoring
    read = {n.name for e in ([sc.score, *sc.tie_break] if sc is not None and sc.score is not None else [])
            for n in e.ast.walk() if isinstance(n, A.Attr)}
    adds: dict[str, list[str]] = {}
    for _seq, s in rs.iter_steps():
        for st in own_statements(s):
            for n in st.ast.walk():
                if isinstance(n, A.Assign) and isinstance(n.target, A.Attr) and n.target.name in read:
                    grows = n.op == "+=" and isinstance(n.value, A.Num) and n.value.value == 1
                    said = w.label(designer_label(s)) or w.step(s, own_label=False)
                    adds.setdefault(n.target.name, []).append(said.rstrip(".") if grows else "")
    return [(capital(v.title), f"Each player's count; it goes up by 1 at “{'”, “'.join(dict.fromkeys(said))}”")
            for name, said in adds.items() if (v := rs.player_variables.get(name)) is not None and v.title
            and not v.doc and all(said) and len(set(said)) <= 2 and not any(v.title.lower() in x.lower() for x in said)]


def let_terms(rs: M.Ruleset, w: Words) -> list[tuple[str, str]]:
    """A name a step gives a player once (`let caller = players[0]`), by who that is ('Caller: The first player'):
    quiet-trump's aid spoke of 'the caller' throughout and never said who it was."""
    said: dict[str, list[str]] = {}
    for _seq, s in rs.iter_steps():
        for st in own_statements(s):
            for n in st.ast.walk():
                name, value = (n.name, n.value) if isinstance(n, A.Let) else (n.target.id, n.value) \
                    if isinstance(n, A.Assign) and isinstance(n.target, A.Name) else ("", None)  # (set again: 2)
                if _word(name) and name not in rs.variables and name not in ("best", "winner", "next", "last"):
                    if (x := w.expr(value)) not in (key := said.setdefault(name, [])):
                        key.append(x)
    return [(capital(_word(name)), capital(xs[0])) for name, xs in said.items()  # (one value, a player's, short)
            if len(xs) == 1 and re.match(r"the (?:\w+ )?player\b(?!')", xs[0], re.I) and len(xs[0]) <= 60]


def parameter_terms(rs: M.Ruleset, w: Words) -> list[tuple[str, str]]:
    """Each parameter of a sequence, by who or what its callers pass ('Auctioneer: the player whose turn it is, in
    Selling a lot'); a parameter named 'player' says itself."""
    passed: dict[tuple[str, str], list[str]] = {}
    for seq, s in rs.iter_steps():
        for st in own_statements(s):
            node = st.ast
            if not isinstance(node, A.CallSeq) or node.sequence not in rs.sequences:
                continue
            for name, value in _args(s, node):
                if name not in rs.sequences[node.sequence].params or name == "player" or not _word(name):
                    continue
                said = "the player whose turn it is" if isinstance(value, A.Name) and value.id == "player" \
                    and "player" not in seq.params else w.expr(value)
                if said not in (key := passed.setdefault((node.sequence, name), [])):
                    key.append(said)
    out = []
    for (sid, name), said in passed.items():
        if said and len(said) <= 2 and all(len(x) <= 60 and len(x.split()) > 2 for x in said):  # ('the card',
            # 'the victim', 'nothing': a word for a word says nothing)
            title = rs.sequences[sid].title or sid.replace("_", " ")
            out.append((capital(_word(name)), f"{capital(' or '.join(said))}, in {title}"))
    return out


def _args(s: M.Step, node: A.CallSeq) -> list[tuple[str, A.Expr]]:
    """The values a call passes by name: a `call:` step's `with:`, or the call's own keywords."""
    return [(k, v.ast) for k, v in getattr(s, "args", ()) or ()] or [(k.name, k.value) for k in node.kwargs]


def card_terms(rs: M.Ruleset, w: Words) -> list[tuple[str, str]]:
    """A card a step with a designer's label draws and names with a word ('draw from lots to block as lot' under
    'Turn up the top lot', the word in the label): 'Lot: the card drawn in “Turn up the top lot” (from the Lot deck)'."""
    out, seen = [], set()
    for _seq, s in rs.iter_steps():
        label = designer_label(s)
        for st in own_statements(s) if label else ():
            for n in st.ast.walk():
                if isinstance(n, A.Draw) and n.bind and _word(n.bind) and n.bind not in seen \
                        and re.search(rf"\b{re.escape(_word(n.bind))}\b", label, re.I) \
                        and (n.count is None or isinstance(n.count, A.Num) and n.count.value == 1):
                    seen.add(n.bind)
                    out.append((capital(_word(n.bind)),
                                f"The card drawn in “{w.label(label).rstrip('.')}” (from {w.expr(n.source)})"))
    return [(t, re.sub(r"\(from the (\w)", lambda m: "(from the " + m.group(1).upper(), d)) for t, d in out]
