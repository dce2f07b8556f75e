"""Completion: step keys where a step is written, and names of the rules language inside its strings."""

from __future__ import annotations

import functools
import re

from lsprotocol import types as T

from rulecraft.loader.schema import load_schema, step_forms

from rulecraft.tools.lsp.documents import Document
from rulecraft.tools.lsp.names import BUILTIN_EVENTS, attributes, builtins, defined_names

STEP_LISTS = {"steps", "then", "else", "do"}  # keys whose value is a list of steps
NOT_RULES = {"id", "label", "source", "note", "title", "doc", "kind", "call", "run", "event", "on", "ruleset",
             "extends", "version", "timing", "name", "as", "loop", "for_each", "start", "per", "visibility",
             "notes", "type", "params", "players", "keys", "columns", "choices", "cycle", "permutation"}
KINDS = {"zone": T.CompletionItemKind.Folder, "parameter": T.CompletionItemKind.Constant,
         "option": T.CompletionItemKind.EnumMember, "table": T.CompletionItemKind.Struct,
         "function": T.CompletionItemKind.Function, "built-in": T.CompletionItemKind.Function,
         "sequence": T.CompletionItemKind.Module, "variable": T.CompletionItemKind.Variable,
         "event": T.CompletionItemKind.Event, "dice": T.CompletionItemKind.Value, "modifier": T.CompletionItemKind.Value}


def complete(doc: Document, pos: T.Position) -> T.CompletionList:
    line = doc.line(pos.line)
    prefix = line[: pos.character]
    items: list[T.CompletionItem] = []
    typing_key = re.match(r"^(\s*)(-\s+)?([A-Za-z_][A-Za-z0-9_]*)?$", prefix)
    key_value = re.match(r"^\s*(?:-\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*:\s+(.*)$", prefix)
    if typing_key and _enclosing_key(doc, pos.line, prefix) in STEP_LISTS:
        items = step_key_items()
        if typing_key.group(2):  # '- mo': a step key, or the first word of a step written as text
            items += rules_items(doc, typing_key.group(3) or "")
    elif key_value:
        key, rest = key_value.groups()
        if _closed(rest):
            pass  # after a quoted value's closing quote: nothing of the rules language is written here
        elif key in ("call", "run", "start"):
            items = _names(doc, {"sequence"})
        elif key in ("event", "on"):
            items = _names(doc, {"event"}) + [T.CompletionItem(e, kind=T.CompletionItemKind.Event, detail="built-in event")
                                              for e in BUILTIN_EVENTS]
        elif key not in NOT_RULES:
            items = rules_items(doc, rest)
    elif re.match(r"^\s*-\s+", prefix) and _enclosing_key(doc, pos.line, prefix) in STEP_LISTS:
        step = re.sub(r"^\s*-\s+", "", prefix)
        items = [] if _closed(step) else rules_items(doc, step)
    elif not re.match(r"^\s*(-\s+)?[A-Za-z_][A-Za-z0-9_]*\s*:", prefix) and _in_text_block(doc, pos.line, prefix):
        items = rules_items(doc, prefix)  # a line of a block of statements ('do: |') or of a quoted string
    return T.CompletionList(is_incomplete=False, items=items)


def _closed(value: str) -> bool:
    """Whether `value` (a YAML value up to the cursor) is a quoted string already closed: the cursor is after it.
    A completion list opened there (the closing quote is a trigger character) took the Enter that ends the line
    and wrote its first name ('abs') after the string."""
    return bool(_QUOTED.fullmatch(value.rstrip()))


_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\']|\'\')*\'')  # a double-quoted YAML value (with escapes), a single-quoted one ('')


def _enclosing_key(doc: Document, n: int, prefix: str) -> str:
    """The key whose value holds line `n` (written up to `prefix`): for '      - ' under '    steps:', 'steps'."""
    indent = len(prefix) - len(prefix.lstrip(" "))
    for i in range(n - 1, -1, -1):
        text = doc.line(i)
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        ind = len(text) - len(text.lstrip(" "))
        if ind >= indent:
            continue  # a sibling, or deeper
        dash = re.match(r"^\s*-\s+", text)
        if dash and indent <= len(dash.group(0)):
            return _enclosing_key(doc, i, " " * ind + "- ")  # a key of a list item's mapping: the list decides
        return doc.key_of_line(i)
    return ""


def _in_text_block(doc: Document, n: int, prefix: str) -> bool:
    """Whether line `n` continues the value of a rules-language key: a block ('do: |') or a quoted string."""
    indent = len(prefix) - len(prefix.lstrip(" "))
    for i in range(n - 1, -1, -1):
        text = doc.line(i)
        if not text.strip():
            continue
        if len(text) - len(text.lstrip(" ")) < indent:
            m = re.match(r"^\s*(?:-\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*)$", text)
            if m is None or m.group(1) in NOT_RULES:
                return False
            value = m.group(2).strip()
            return bool(re.match(r"^[|>][-+0-9]*$", value)) or (value[:1] in "\"'" and value[:1] != "" and
                                                                 not value.rstrip().endswith(value[0]))
    return False


@functools.lru_cache(maxsize=None)
def _step_keys() -> tuple[tuple[str, str], ...]:
    defs = load_schema()["$defs"]
    seen: dict[str, str] = {}
    for key, index in step_forms().items():
        form = defs[load_schema()["$defs"]["step"]["anyOf"][index]["$ref"].rsplit("/", 1)[1]]
        for k, sub in form["properties"].items():
            desc = sub.get("description", "")
            seen.setdefault(k, f"{desc} ({form['title']})" if k == key else desc)
    return tuple(seen.items())


def step_key_items() -> list[T.CompletionItem]:
    return [T.CompletionItem(k, kind=T.CompletionItemKind.Property, detail="step key", documentation=doc,
                             insert_text=f"{k}: ") for k, doc in _step_keys()]


def rules_items(doc: Document, text: str) -> list[T.CompletionItem]:
    """Names for the rules-language text `text` (what is left of the cursor inside a string)."""
    model = doc.model
    attr = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*(\[[^\]]*\])?\.([A-Za-z_][A-Za-z0-9_]*)?$", text)
    if attr:
        owner = attr.group(1)
        found = attributes(model, owner)
        if not found and not (model is not None and owner in model.tables):
            found = sorted(set(attributes(model, "player")) | set(attributes(model, "card")))
        return [T.CompletionItem(a, kind=T.CompletionItemKind.Field, detail=f"attribute of {owner}") for a in found]
    compare = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*(==|!=)\s*(['\"]?)([A-Za-z0-9_]*)$", text)
    if compare and model is not None and compare.group(1) in model.options:
        quote = compare.group(3)
        return [T.CompletionItem(str(c), kind=T.CompletionItemKind.EnumMember, detail=f"a choice of {compare.group(1)}",
                                 insert_text=str(c) if quote or not isinstance(c, str) else f"'{c}'")
                for c in model.options[compare.group(1)].choices]
    items = [T.CompletionItem(n.name, kind=KINDS.get(n.kind, T.CompletionItemKind.Text), detail=n.detail,
                              documentation=T.MarkupContent(T.MarkupKind.Markdown, n.doc))
             for n in defined_names(model).values()]
    items += [T.CompletionItem(n.name, kind=T.CompletionItemKind.Function, detail=n.detail,
                               documentation=T.MarkupContent(T.MarkupKind.Markdown, n.doc)) for n in builtins().values()]
    return items


def _names(doc: Document, kinds: set[str]) -> list[T.CompletionItem]:
    return [T.CompletionItem(n.name, kind=KINDS.get(n.kind, T.CompletionItemKind.Text), detail=n.detail,
                             documentation=T.MarkupContent(T.MarkupKind.Markdown, n.doc))
            for n in defined_names(doc.model).values() if n.kind in kinds]
