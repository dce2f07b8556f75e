"""The renderer's core: the phrase tables, dispatch by node type, and how names and values read."""

from __future__ import annotations

import re
from dataclasses import fields, is_dataclass
from typing import Any, Callable, Optional

from rulecraft.dsl import ast as A
from rulecraft.model import ruleset as M
from rulecraft.tools.words.locals import abbreviation
from rulecraft.tools.words.naming import participle_reading
from rulecraft.tools.words.text import CLIPPED, humanize, join_and, shown_once, value_words  # noqa: F401  (read here too)

PHRASES: dict[type, Callable[["Words", Any], str]] = {}


def phrase(cls: type):
    """Register the function that writes the phrase of nodes of class `cls` (an AST node or a step)."""

    def deco(fn):
        PHRASES[cls] = fn
        return fn

    return deco


def article(noun: str) -> str:
    """'a card', 'an Emblem'; a noun with its article or an owner already is as it is (not 'an a player's Mark')."""
    first = noun.split(" ", 1)[0]
    if first.lower() in ("a", "an") or first.endswith("'s"):
        return noun
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def the(title: str) -> str:
    """A title as a noun phrase: 'the Event Deck' ('The stack' keeps its own article)."""
    return "the " + title[4:] if title.lower().startswith("the ") else "the " + title


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def sequence_title(seq) -> str:
    """A sequence's title for players: one written without `title:` reads by its id, as a title ('Game')."""
    return capital(humanize(seq.id)) if not seq.title or seq.title == seq.id else seq.title


def fallback(w: "Words", node: Any) -> str:
    """The phrase of a node nobody wrote one for: its class in words, then its parts' phrases."""
    parts = []
    if is_dataclass(node):
        for f in fields(node):
            if f.name in ("span", "path", "id", "source", "note", "explicit_id") or f.name.endswith("_span"):
                continue
            v = getattr(node, f.name)
            if v is None or v == () or v == "":
                continue
            parts.append(w.any(v))
    name = re.sub(r"(?<!^)(?=[A-Z])", " ", type(node).__name__).lower().removesuffix(" step")
    return " ".join([name] + [p for p in parts if p])


_ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth"]


class Words:
    """English for one ruleset: `expr`, `stmt`, `step`, `text` and `value` each return a phrase."""

    def __init__(self, rs: M.Ruleset, titles: Optional[dict] = None, detail: str = "full"):
        self.rs = rs
        self.detail = detail  # 'players': a step's bookkeeping statements are left out of its phrase
        self.titles = dict(getattr(rs, "titles", {}) or {})
        self.titles.update(titles or {})
        self._info = None
        self.you: Optional[str] = None  # the local name of the player a prompt speaks to
        self._saying: set = set()  # names being said through what they are set to (no loop)
        self._key_titles: Optional[dict] = None  # table key -> its title (expressions.key_titles)
        self._first_price: Optional[dict] = None  # the results of auctions won at the best bid, their price's words
        self._readings: Optional[dict] = None  # in one sentence: a local that would read like another -> its words

    # ------------------------------------------------------------------ dispatch
    def node(self, node: Any) -> str:
        for cls in type(node).__mro__:
            fn = PHRASES.get(cls)
            if fn is not None:
                return fn(self, node)
        return fallback(self, node)

    def expr(self, e: Any) -> str:
        if isinstance(e, M.CExpr):
            e = e.ast
        return "" if e is None else self.node(e)

    def stmt(self, s: Any) -> str:
        if isinstance(s, M.CStmt):
            s = s.ast
        return capital(self.pronouns(self.sentence(s)))

    def sentence(self, node: Any) -> str:
        """One sentence's phrase, in which two different locals never read the same ('the other player')."""
        if self.detail == "full" or self._readings is not None:
            return self.node(node)
        from rulecraft.tools.words.locals import distinct_readings

        self._readings = {}
        try:
            self._readings = distinct_readings(self, node)
            return self.node(node)
        finally:
            self._readings = None

    def pronouns(self, text: str) -> str:
        """For players, a person named twice in a sentence is 'their' the second time ("Add the player's run to
        their points"); things ('the card's type') keep their name."""
        if self.detail == "full" or " each " in text or " where " in text:  # another player may be meant
            return text
        m = _PERSON.search(text)
        if not m:
            return text
        head, tail = text[:m.end()], text[m.end():]
        return head + re.sub(rf"(?<![\w'])[Tt]he {m.group(1)}'s ", "their ", tail)

    def reading(self, name: str, said: str, e: Any) -> str:
        """An expression said with one local read another way ('their', 'every player')."""
        saved = self._readings
        self._readings = dict(saved or {}, **{name: said})
        try:
            return self.expr(e)
        finally:
            self._readings = saved

    def step(self, s: M.Step, own_label: bool = True) -> str:
        """A step in words: its label where it has one, else what it does."""
        if own_label and s.label:
            from rulecraft.tools.words.labels import fill

            return fill(self.rs, s.label)
        return capital(self.pronouns(self.sentence(s)))

    def label(self, text: str) -> str:
        """A designer's label with its {names} filled from the ruleset."""
        from rulecraft.tools.words.labels import fill

        return fill(self.rs, text)

    def any(self, v: Any) -> str:
        if isinstance(v, (A.Node, M.Step)):
            return self.node(v)
        if isinstance(v, (M.CExpr, M.CStmt)):
            return self.node(v.ast)
        if isinstance(v, tuple) and all(isinstance(x, (A.Node, M.Step, M.CStmt, M.CExpr)) for x in v):
            return "; ".join(self.any(x) for x in v)
        return self.value(v)

    # ------------------------------------------------------------------ names and values
    def name(self, ident: str) -> str:
        """A game name in words: a title, a parameter's value, or the id with spaces."""
        rs = self.rs
        if ident in self.titles:
            return self.titles[ident]
        if self._readings and ident in self._readings:
            return self._readings[ident]
        if ident in rs.parameters:
            return self.value(rs.parameters[ident].value)
        if ident in rs.options:
            return self.value(rs.options[ident].value)
        for table in (rs.zones, rs.tables):
            if ident in table and getattr(table[ident], "title", ""):
                return the(table[ident].title)
        if ident in rs.sequences:
            if self.detail != "full":
                return sequence_title(rs.sequences[ident])
            return rs.sequences[ident].title or humanize(ident)
        if ident == "players":
            return "the players"
        if ident == "player_count" and self.detail != "full":
            return "the number of players"
        if ident in rs.variables and self.detail != "full" and abbreviation(ident):
            return self.standing_for(ident) or "the value"
        if ident in rs.variables and self.detail != "full" and ident.endswith("s") and "_" not in ident \
                and isinstance(rs.variables[ident].initial, int) and not isinstance(rs.variables[ident].initial, bool):
            return "the number of " + ident  # a count kept under a plural name: 'rounds'
        if ident in rs.variables and self.detail != "full" and ident in _ADJECTIVES and ident in self.info.persons:
            return f"the {ident} player"  # 'set first = next_player(first)': the first player, not 'the first'
        if ident in rs.variables or ident in rs.zones or ident in rs.tables:
            return "the " + humanize(ident)
        if self.detail != "full" and ident not in rs.functions and ident not in rs.dice:
            return self.local(ident)
        return humanize(ident)

    def local(self, ident: str) -> str:
        """A local name (a loop's variable, a sequence's parameter, a result kept `as`) as players read it:
        a noun with its article, never a bare letter ('p' -> 'the player') nor an abbreviation ('ev' -> 'the card')."""
        if self._readings and ident in self._readings:
            return self._readings[ident]
        if self.detail != "full" and ident.lower() in _POSSESSIVES and ident in self.info.defs:  # 'the mine': no
            return self.expr(self.info.defs[ident])  # ('let mine = player.hand.top.rank': what it is set to)
        if self.detail != "full" and ident in self.info.defs and not ident.endswith("s") and "_" not in ident:
            from rulecraft.tools.words.locals import _kind

            value = getattr(self.info.defs[ident], "ast", self.info.defs[ident])
            if isinstance(value, A.Comprehension) and _kind(self, value):  # 'eligible': the eligible players
                return f"the {ident} {_kind(self, value)}s"
            if ident.endswith("est") or ident in _ADJECTIVES:  # 'let best = highest(...)': the best player
                return f"the {ident} {_kind(self, value)}" if _kind(self, value) else f"the {ident}"
        if self.detail != "full" and (said := participle_reading(self, ident)):  # 'let made = ...': the flour made
            return said
        if self.detail != "full" and ident in self.info.tallies and ident not in self.rs.variables:
            return "the number of " + humanize(ident)
        if self.detail != "full" and not plain_role(ident, self.info.nouns.get(ident, "")):
            return "the " + self.info.nouns[ident]  # 'mate': the chosen player
        if self.detail != "full" and ident in CLIPPED:
            return "the " + CLIPPED[ident]  # 'dest': the destination
        if len(ident) > 1 and not (self.detail != "full" and (abbreviation(ident) or self._unsayable(ident))):
            return "the " + humanize(ident)
        return self.standing_for(ident) or "the " + self.noun_of(ident)

    def _unsayable(self, ident: str) -> bool:
        """A pick named by a participle ('gone', 'taken') or a pronoun ('who'): no noun to put 'the' before."""
        word = ident.lower()
        return word in _PRONOUNS or (ident in self.info.nouns and (word.endswith(("ed", "en")) or word in _PARTICIPLES
                                                                   or word in _FUNCTION_WORDS))

    @property
    def info(self):
        """What each name of the ruleset stands for (rulecraft.tools.words.locals), worked out once."""
        if self._info is None:
            from rulecraft.tools.words.locals import local_info

            self._info = local_info(self)
        return self._info

    def standing_for(self, ident: str) -> str:
        """What a name players cannot read stands for: the noun of what binds it, the one value it is ever set to
        (when that is short), 'the count' for a counter; '' when nothing is known."""
        info = self.info
        if ident in info.nouns:
            return "the " + info.nouns[ident]
        if ident in info.defs and ident not in self._saying:
            from rulecraft.tools.words.locals import _kind

            value = getattr(info.defs[ident], "ast", info.defs[ident])
            if _kind(self, value) and not isinstance(value, (A.Comprehension, A.BinOp)):
                return "the " + _kind(self, value)  # one card, one player: said by its noun
            self._saying.add(ident)
            try:
                said = self.expr(info.defs[ident])
            finally:
                self._saying.discard(ident)
            if said and len(said) <= 40:
                return said
        if ident in info.counters:
            return info.counted.get(ident) or "the count"
        return ""

    def noun_of(self, ident: str) -> str:
        """What a one-letter local stands for: worked out from what it runs over, else from the letter."""
        return self.info.nouns.get(ident) or _LETTER_NOUNS.get(ident.lower()) or _PRONOUNS.get(ident.lower(), "one")

    def attribute(self, ident: str) -> str:
        """An attribute's words: a per-player zone or variable by its title, a column by its name."""
        if ident in self.titles:
            return self.titles[ident]
        z = self.rs.zones.get(ident)
        if z is not None and z.title:
            return z.title
        return humanize(ident)

    def is_constant(self, e: Any) -> bool:
        return self.constant(e) is not _UNKNOWN

    def constant(self, e: Any) -> Any:
        """The value of an expression fixed by the ruleset (literals, parameters, options), else _UNKNOWN."""
        if isinstance(e, A.Num):
            return e.value
        if isinstance(e, A.Str) and e.is_plain:
            return "".join(e.parts)
        if isinstance(e, A.Const):
            return e.value
        if isinstance(e, A.Name):
            if e.id in self.rs.parameters:
                return self.rs.parameters[e.id].value
            if e.id in self.rs.options:
                return self.rs.options[e.id].value
            return _UNKNOWN
        if isinstance(e, A.Compare) and e.op in ("==", "!="):
            a, b = self.constant(e.left), self.constant(e.right)
            if a is _UNKNOWN or b is _UNKNOWN:
                return _UNKNOWN
            return (a == b) if e.op == "==" else (a != b)
        if isinstance(e, A.BinOp) and e.op in ("and", "or"):
            a, b = self.constant(e.left), self.constant(e.right)
            decisive = e.op == "or"  # 'or' is settled by a true side, 'and' by a false one
            if (a is not _UNKNOWN and bool(a) == decisive) or (b is not _UNKNOWN and bool(b) == decisive):
                return decisive
            if a is not _UNKNOWN and b is not _UNKNOWN:
                return bool(b)
            return _UNKNOWN
        if isinstance(e, A.Ternary):
            c = self.constant(e.cond)
            return _UNKNOWN if c is _UNKNOWN else self.constant(e.then if c else e.other)
        if isinstance(e, A.Unary) and e.op == "not":
            v = self.constant(e.operand)
            return _UNKNOWN if v is _UNKNOWN else (not v)
        if isinstance(e, A.Unary) and e.op == "-" and isinstance(e.operand, A.Num):
            return -e.operand.value
        return _UNKNOWN

    def value(self, v: Any) -> str:
        """A run-time or data value in words (never a Python repr; `none` is 'nothing' for players)."""
        if v is None and self.detail != "full":
            return "nothing"
        return value_words(v)

    def ordinal(self, n: int) -> str:
        if n < 0:
            return "the last" if n == -1 else f"the {_ORDINALS[-n - 1] if -n <= len(_ORDINALS) else str(-n)} from last"
        return "the " + (_ORDINALS[n] if n < len(_ORDINALS) else f"number {n + 1}")

    def text(self, s: Any) -> str:
        """A prompt or message: literal text with each {expression} in words."""
        if isinstance(s, M.CExpr):
            s = s.ast
        if isinstance(s, A.Str):
            if self.detail == "full":
                return "".join(p if isinstance(p, str) else self.expr(p) for p in s.parts)
            parts = list(s.parts)
            shown = ""
            if len(parts) >= 3 and isinstance(parts[0], str) and not isinstance(parts[1], str) \
                    and isinstance(parts[2], str) and parts[2].lstrip().startswith(":"):
                said = self.expr(parts[1])
                lead = set(parts[0].lower().split())
                if lead and lead <= set(said.lower().split()):  # 'Total {turn_total}: roll again?' shows a value,
                    shown = said  # then asks: the question first, the value it shows after it
                    parts = [parts[2].lstrip()[1:].lstrip()] + parts[3:]
                    parts[0] = parts[0][:1].upper() + parts[0][1:]
            out, named = "", ""
            for p in parts:
                said = p if isinstance(p, str) else self.expr(p)
                if isinstance(p, A.Name) and p.id in self.info.passes and not self.info.counted.get(p.id):
                    said = str(self.info.passes[p.id])  # 'Action {done} of 2', a counted loop's pass: as first asked
                if named and isinstance(p, str):  # '({player.coins} coins)': 'your Coins' already names them
                    said = re.sub(r"^\s*" + re.escape(named) + r"(?!\w)\s*", " ", said, flags=re.I)
                    said = re.sub(r"^ (?=[),:;.?!]|$)", "", said)
                bare = re.sub(r"^(?:the|your|their) ", "", said) if not isinstance(p, str) else ""
                named = bare
                if bare and out.lower().rstrip().endswith(bare.lower()):
                    named = ""
                    continue  # 'Turn total {turn_total}': the words before the value already name it
                out += said
            # 'Choose the {type}' with a phrase that brings its own article: one article
            if shown:
                from rulecraft.tools.words.text import plural

                out += f" ({shown} {'are' if plural(shown) else 'is'} shown)"
            out = shown_once(re.sub(r"\s+([,:;.?!])", r"\1", out))
            return re.sub(r"\b([Tt]he|[Aa]n?|[Yy]our) (?:the|a|an) ", r"\1 ", out)
        return self.expr(s)

    def addressed(self, player, text_node) -> str:
        """A prompt as its decider reads it: their own things are 'your' ("You have your run this turn")."""
        from rulecraft.dsl import ast as A

        who = getattr(player, "ast", player)
        saved, self.you = self.you, (who.id if isinstance(who, A.Name) else None)
        try:
            return self.text(text_node)
        finally:
            self.you = saved


_UNKNOWN = object()

_PERSON = re.compile(r"(?<![\w'])[Tt]he (player|actor|taker|winner|responder|bidder|target|victim|receiver|holder|dealer|"
                     r"leader|challenger|seizer|claimant|opener|buyer|seller)'s ")
_PRONOUNS = {"who": "player", "whom": "player", "whose": "player", "me": "player", "them": "player"}
_POSSESSIVES = {"mine", "yours", "theirs", "ours", "his", "hers", "its"}
_ADJECTIVES = {"best", "worst", "last", "first", "next", "top", "leading", "chosen", "current", "new", "old"}
# words that name no thing: a pick named `where` or `again` reads by what was chosen ('the chosen space')
_FUNCTION_WORDS = {"where", "again", "which", "what", "how", "when", "whether", "here", "there", "more", "less",
                   "back", "instead", "also", "then", "now", "next", "else"}
_PARTICIPLES = {"gone", "got", "kept", "lost", "won", "sold", "left", "done", "shown", "put", "held", "dealt", "paid", "said",
                "told", "laid", "made", "bought", "brought", "met", "found", "meant"}  # (not bid, set: nouns too)
# a one-letter local whose use says nothing else reads by its letter's usual noun
_LETTER_NOUNS = {"p": "player", "q": "player", "o": "player", "c": "card", "k": "card", "r": "roll", "d": "dice",
                 "z": "pile", "t": "type", "n": "number", "v": "value", "x": "one", "e": "event", "s": "one"}


def plain_role(ident: str, noun: str) -> bool:
    """A name bound by a choice of a player or a row reads as the designer's word where that word names a role ('the
    target', 'the receiver') or what is chosen ('the colour'); else as what it is: 'mate' is the chosen player, 'back'
    the chosen colour (not 'the mate's Sandbags', 'for the back')."""
    if not noun.startswith("chosen ") or noun == "chosen card":
        return True
    return ident.endswith(("er", "or", "ee", "ent", "ant", "ist")) or ident in _ROLES or ident == noun[7:]


_ROLES = {"target", "victim", "rival", "partner", "ally", "heir", "pick", "choice"}
