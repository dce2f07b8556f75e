"""Hover, go to definition and the outline of sequences, from the names the built model defines."""

from __future__ import annotations

from lsprotocol import types as T

from rulecraft.tools.lsp.documents import Document, location, same_file
from rulecraft.tools.lsp.names import builtins, defined_names


def hover(doc: Document, pos: T.Position) -> T.Hover | None:
    found = doc.word_at(pos)
    if found is None:
        return None
    word, owner, rng = found
    name = defined_names(doc.model).get(word) or builtins().get(word)
    if owner and name is not None and name.kind != "zone":
        name = None  # an attribute: only a zone of each player ('player.hand') means the same after a dot
    if name is None:
        return None
    start, end = doc.units_of(doc.lines, rng.start), doc.units_of(doc.lines, rng.end)
    return T.Hover(contents=T.MarkupContent(T.MarkupKind.Markdown, name.doc), range=T.Range(start, end))


def definition(doc: Document, pos: T.Position) -> T.Location | None:
    found = doc.word_at(pos)
    if found is None or found[1]:
        return None
    name = defined_names(doc.model).get(found[0])
    if name is None or name.span is None:
        return None
    return location(doc, name.span)


def outline(doc: Document) -> list[T.DocumentSymbol]:
    """The sequences written in this file, in file order, each with its steps that have an id."""
    model = doc.model
    if model is None:
        return []
    out = []
    for seq in model.sequences.values():
        if not same_file(seq.span.file, doc.path):
            continue  # inherited through 'extends': outlined in its own file
        rng = doc.to_client(seq.span)
        children = [T.DocumentSymbol(name=s.label or s.id, kind=T.SymbolKind.Event, range=doc.to_client(s.span),
                                     selection_range=doc.to_client(s.span), detail=s.id)
                    for s in seq.steps if s.explicit_id and same_file(s.span.file, doc.path)]
        out.append(T.DocumentSymbol(name=seq.id, detail=(seq.title or "") + (f" ({seq.kind})" if seq.kind else ""),
                                    kind=T.SymbolKind.Function, range=_grow(rng, children),
                                    selection_range=rng, children=children))
    return sorted(out, key=lambda s: (s.range.start.line, s.range.start.character))


def _grow(rng: T.Range, children: list[T.DocumentSymbol]) -> T.Range:
    """A symbol's range must hold its children's."""
    end = max([rng.end] + [c.range.end for c in children], key=lambda p: (p.line, p.character))
    return T.Range(rng.start, end)
