"""The designer's words: label templates filled from the ruleset, and the test of text that reads like code.

A step's `label:` may embed values of the ruleset in braces, so a variant's printed rules stay
true when it changes a number::

    label: Roll 2d6; you need {max_target} or less

A name in braces is a parameter or an option (its value), a dice id (`2d6`), or a table value
`{table.key.column}` (`{table.key}` for a one-column table). `{{` and `}}` print one brace.
An unknown name is printed as written and reported by `rulecraft validate` (W702).

`code_like` finds what a player should never read: identifiers with underscores, comparison
operators, `x[...]` lookups, `name(arg)` calls, lone variable letters, "(player p)"-style
arguments, `none`, and source file names. The print check (W701), the construct phrases and
the tests over every bundled ruleset use it.
"""

from __future__ import annotations

import re

from rulecraft.model import ruleset as M
from rulecraft.model.templates import FIELD, ONE, lookup, singular_after_one

_FIELD = FIELD  # the one template syntax (rulecraft.model.templates)
_lookup = lookup
MAX_PRINTED = 20_000  # characters a filled-in text may reach: what the loader lets through (E013) and a margin


def fill(rs: M.Ruleset, text: str) -> str:
    """A label with each {name} replaced by the ruleset's value in words (unknown names stay as written)."""
    if not text or "{" not in text and "}" not in text:
        return text
    from rulecraft.tools.words.text import value_words

    made = [0]  # characters filled in so far: a printer never builds more than MAX_PRINTED (issue 38)
    said: dict = {}  # each name's words, made once

    def sub(m: re.Match) -> str:
        if m.group(0) in ("{{", "}}"):
            return m.group(0)[0]
        if made[0] > MAX_PRINTED:
            return ""
        name = m.group(1)
        if name not in said:
            value = _lookup(rs, name)
            said[name] = m.group(0) if value is None else value_words(value)
        made[0] += len(said[name])
        return (ONE if said[name] == "1" else "") + said[name] if made[0] <= MAX_PRINTED else "…"

    return singular_after_one(_FIELD.sub(sub, text))  # '{n} Treachery Cards' with n = 1: '1 Treachery Card'



def unknown_names(rs: M.Ruleset, text: str) -> list[str]:
    """The names in a label's braces that the ruleset does not have."""
    return [m.group(1) for m in _FIELD.finditer(text or "")
            if m.group(0) not in ("{{", "}}") and _lookup(rs, m.group(1)) is None]


# ----------------------------------------------------------------------------- text that reads like code

_CODE = [
    ("an identifier with an underscore", re.compile(r"\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+\b")),
    ("an operator", re.compile(r"==|!=|<=|>=|=>|&&|\|\|")),
    ("a lookup x[...]", re.compile(r"\w\[")),
    ("a call name(arg)", re.compile(r"\b[a-z_][a-z0-9_]*\([a-z_'\"]")),
    ("a lone variable letter", re.compile(r"(?<![\w'’.\-])(?:[b-zB-HJ-Z])(?:['’]s)?(?![\w'’\-♠♣♥♦])(?!\.\w)")),
    ("an argument in parentheses", re.compile(r"\((player|card|[a-z]+) ([a-z]\b|none\b|player\b|card\b)[^)]*\)")),
    # 'none' the value, not the English pronoun ('if none was played', 'none of them')
    ("'none'", re.compile(r"\bnone\b(?! (?:of|was|were|can|could|may|might|left|has|have|had)\b)")),
    ("a source file name", re.compile(r"\b[\w\-]+\.(?:html?|md|ya?ml|pdf|txt)\b|\bDIGEST\b")),
]


def code_like(text: str) -> list[str]:
    """What in `text` reads like code rather than rules (an empty list: it reads as words)."""
    found = []
    for what, pattern in _CODE:
        m = pattern.search(text or "")
        if m:
            found.append(f"{what} ({m.group(0).strip()!r})")
    return found


def clean_clauses(text: str) -> str:
    """A sentence with each clause (split at ';') or parenthesis that reads like code left out."""
    keep: dict[str, str] = {}

    def park(m: re.Match) -> str:  # innermost parentheses first: a clean one is kept whole, a coded one goes
        if code_like(m.group(1)):
            return ""
        keep[f"\x00{len(keep)}\x00"] = m.group(0)
        return f"\x00{len(keep) - 1}\x00"

    prev = None
    while prev != text:
        prev, text = text, re.sub(r"\s*\(([^()]*)\)", park, text)
    kept = [c.strip() for c in text.split(";") if c.strip() and not code_like(c)]
    out = "; ".join(kept)
    while "\x00" in out:
        for k, v in keep.items():
            out = out.replace(k, v)
    return out


# ----------------------------------------------------------------------------- the print check

LONG = 90  # generated text longer than this (characters) asks for a label

# a call's keyword arguments in words: "(card the offer, player the player)"; not prose ("(to the left, then ...)")
_NOT_A_KEYWORD = r"(?!(?:and|or|then|to|always|at|by|from|in|on|with|of|for|but|so|not|if|as)\b)"
_ARGS = rf"\((?:{_NOT_A_KEYWORD}[a-z]+ (?:the|a|an) [\w' ]+, )+{_NOT_A_KEYWORD}[a-z]+ (?:the|a|an) [\w' ]+\)"
_STILTED = [
    ("a bare name as the condition", re.compile(r"^If (?:not )?(?:the )?[a-z]+(?: of the [a-z]+)?\??$")),
    ("a name ending in a preposition", re.compile(r"\b(?:by|to|in|for|from|with|of) of\b")),
    ("a chain of 'of the'", re.compile(r"\bthe [a-z]+ of the [a-z]+ of the [a-z]+")),
    ("a value's id as words", re.compile(r"\b[Ss]et the [\w' ]+? to (?!(?:the|a|an|one|each|every|no|nothing|yes|all|half)\b)"
                                         r"(?!\d)[a-z]+")),
    ("a doubled article", re.compile(r"\b(?:[Tt]he|[Aa]n?) (?:the|a|an)\b")),
    ("a 'not' before its subject", re.compile(r"\bnot (?:the|a|an) [\w' ]+? (?:is|are)\b")),
    ("a question put as an If", re.compile(r"^If .*\?$")),
    ("a loop's name as a thing", re.compile(r"\buntil the [a-z ]+ stops\b")),
    ("a thing compared with itself", re.compile(r"\b(the [a-z]+) is \1\b")),
    ("a value nothing names ('the one')", re.compile(r"\bthe one\b(?! (?:of|who|that|chosen|with|doing|awarded))")),
    ("an argument list", re.compile(_ARGS)),
    ("a question word read as a thing", re.compile(r"\bthe (?:where|again|which|what|how|when|whether)\b")),
    ("a table lookup read as a path", re.compile(r"\bthe [\w' ]+? of the [\w' ]+? for the [\w' ]+? is\b")),
    ("a pronoun read as a thing", re.compile(r"\bthe (?:mine|theirs|ours|yours|hers|his)(?:'s|')?(?=\W|$)")),
    ("what happened read as a thing", re.compile(r"\bthe (?:gone|taken|lost|given|won|chosen|kept|discarded|drawn)"
                                                 r"(?=\s+(?:to|from|into|onto|of|in|on|at|and|or)\b|[.,;?!]|$)")),
]


def stilted(text: str, picks=(), flags=(), shorts=()) -> list[str]:
    """What in generated `text` reads as code put into English word by word (for the print check only): an
    If on a bare name or field ("If go?", "If the success of the roll?"), a name ending in a preposition
    ("the cast by of the spell"), an of-chain ("the number of the tied of the seize"), a value's id after
    "Set ... to" ("Set the Event type to grand opening"), a doubled article ("the the first"), a 'not' put
    before its subject ("not the Bag is empty"), a question put as an If ("If the go?"), a loop's name read
    as a thing ("Repeat until the rounds loop stops"), a thing compared with itself ("the one is the one"), a value
    nothing names ("Move the one to the bids"), an argument list ("(card the offer, player the player)"), a
    question word read as a thing ("Add the where to the spaces"), a player's pick (a decision's `as:` name, in `picks`)
    counted as a thing ("the number of the commit"), a yes/no value (a name in `flags`) read as a thing
    ("the alive of the actor"), or an abbreviation (in `shorts`) read as a noun ("Move the ev to the Stocks")."""
    found = []
    for what, pattern in _STILTED:
        m = pattern.search(text or "")
        if m:
            found.append(f"{what} ({m.group(0).strip()!r})")
    for name in picks:
        m = re.search(rf"\bnumber of the {re.escape(name.replace('_', ' '))}\b", text or "")
        if m:
            found.append(f"a pick counted as a thing ({m.group(0)!r})")
            break
    for name in flags:
        m = re.search(rf"\bthe {re.escape(name.replace('_', ' '))} of\b", text or "")
        if m:
            found.append(f"a yes/no value read as a thing ({m.group(0)!r})")
            break
    for name in shorts:
        m = re.search(rf"\bthe {re.escape(name)}\b", text or "")
        if m:
            found.append(f"an abbreviation read as a noun ({m.group(0)!r})")
            break
    return found


def plain_prose(text: str) -> str:
    """A designer's prose for players: parentheses and sentences that cite files or read like code left out."""
    if not text:
        return text
    text = re.sub(r"\s*\(([^()]*)\)", lambda m: "" if _prose_code(m.group(1)) else m.group(0), text)
    sentences = re.split(r"(?<=[.!?])\s+", " ".join(text.split()))
    return " ".join(s for s in sentences if not _prose_code(s))


def _prose_code(text: str) -> list[str]:
    """`code_like` for a designer's prose: a lone capital letter is a name's initial or a letter the author
    means ('Christin P.', 'Plan B'), never a rule's variable (those are small letters)."""
    return [x for x in code_like(text) if not re.match(r"a lone variable letter \('[A-Z](?:'s)?'\)", x)]


def condition_question(w, s: M.IfStep, limit: int = 70) -> str:
    """A condition as the question a yes/no diamond asks ('Did the roll succeed?' reads as 'The roll succeeds?'),
    or '' where the words would be long or read like code: a diamond never holds a statement."""
    said = re.sub(r"^if ", "", w.step(s, own_label=False).strip(), flags=re.I)
    if not said or code_like(said) or len(said) > limit or said in ("always", "never") or "?" in said \
            or stilted(said) or re.search(r"^not |\bthe (?:this|that|these|those)\b|'s (?:what|who|where|which)\b"
                                          r"|'s \w+ (?:as|by|of|to|for)\b|^the \w+$|\bthe [a-z]+ [a-z]+ not\b", said):
        return ""
    m = re.match(r"^(.+?) (is|are) (.+)$", said)
    if m and " and " not in said and " or " not in said:  # 'the card is an Emblem' -> 'Is the card an Emblem?'
        return f"{m.group(2).capitalize()} {m.group(1)} {m.group(3)}?"
    return said[:1].upper() + said[1:] + "?"
