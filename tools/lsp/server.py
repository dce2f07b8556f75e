"""The pygls server: one small handler per LSP feature, over the documents the store has checked.

Checks run on one worker thread, off the request path: hover, completion and the rest answer from
the last checked text while a check runs, and a check whose text is no longer the newest is skipped.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from urllib.parse import unquote
from concurrent.futures import ThreadPoolExecutor

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from rulecraft.loader.yaml_source import DEFAULT_LIMITS
from rulecraft.tools.lsp.completion import complete
from rulecraft.tools.lsp.documents import Document, Store, build, looks_like_ruleset
from rulecraft.tools.lsp.navigation import definition, hover, outline
from rulecraft.tools.lsp.problems import SOURCE, lsp_diagnostics, quick_fixes

log = logging.getLogger("rulecraft.lsp")
SETTLE = 0.02  # seconds a change waits for a newer one before it is checked
MAX_DOCUMENT = DEFAULT_LIMITS.max_file_bytes  # bytes (UTF-8) of a document the server checks, as the loader reads
MAX_HELD = 64 * 1024 * 1024  # characters of all open documents together


def make_server() -> LanguageServer:
    from rulecraft.tools.cli.main import _version

    # Incremental sync: a change carries only the text typed (the whole text of a long ruleset, sent on every
    # keystroke, cost the studio's page 4 ms of its main thread each, session 15); a change without a range is the
    # whole text, as before. A document grown past the limits by many changes is refused by its check (below).
    server = LanguageServer("rulecraft", _version(), text_document_sync_kind=T.TextDocumentSyncKind.Incremental)
    store = Store()
    latest: dict[str, int | None] = {}  # the newest version of each document a change announced
    checker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lsp-check")
    server.rulecraft_checker = checker  # type: ignore[attr-defined] - stopped by run()
    server.rulecraft_store = store  # type: ignore[attr-defined] - the checked documents, read by the studio's charts
    # pygls shows an editor 'Error in server: KeyError ...' for a notification it could not handle (a change to a
    # document never opened): Python's words are for the log, one line
    server.report_server_error = lambda error, source: log.warning("%s: %s", type(error).__name__, str(error)[:200])

    def publish(uri: str, version: int | None, diagnostics: list[T.Diagnostic]) -> None:
        server.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, version=version,
                                                                            diagnostics=diagnostics))

    def refuse_size(uri: str, size: int, version: int | None = None) -> None:
        """A document over the limit is not kept or checked: one diagnostic says why."""
        store.close(uri)
        latest[uri] = version
        publish(uri, version, [T.Diagnostic(
            range=T.Range(T.Position(0, 0), T.Position(0, 0)), severity=T.DiagnosticSeverity.Error, code="E002",
            source=SOURCE, message=f"this document is {size:,} bytes, over the limit of {MAX_DOCUMENT:,}: not checked")])

    server.rulecraft_refuse_size = refuse_size  # type: ignore[attr-defined] - told by the wire of a message not read

    def checked(uri: str, version: int | None, text: str) -> Document | None:
        """Runs on the checker thread: the newest text of `uri` checked, or None when a newer one is queued."""
        if latest.get(uri) != version:
            return None
        return build(uri, to_fs_path(uri) or uri, text, version, server.workspace.position_codec.impl)

    async def check(uri: str, version: int | None) -> None:
        latest[uri] = version
        await asyncio.sleep(SETTLE)  # changes queued while a check ran (one per keystroke): only the newest is checked
        if latest.get(uri) != version:
            return
        held = server.workspace.text_documents
        wdoc = held.get(uri) or held.get(unquote(uri))  # only what the editor sent: never a file read from disk
        if wdoc is None:
            return  # closed meanwhile, or never opened (a didSave of file:///dev/zero reads nothing)
        text = wdoc.source
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > MAX_DOCUMENT:
            server.workspace.remove_text_document(uri)  # not held either
            refuse_size(uri, size, version)
            return
        total = sum(len(d.source) for d in held.values())
        if total > MAX_HELD:
            server.workspace.remove_text_document(uri)
            store.close(uri)
            publish(uri, version, [T.Diagnostic(
                range=T.Range(T.Position(0, 0), T.Position(0, 0)), severity=T.DiagnosticSeverity.Error, code="E002",
                source=SOURCE, message=f"the open documents hold {total:,} characters, over the server's limit of "
                                       f"{MAX_HELD:,}: this one is not checked; close some documents")])
            return
        if not looks_like_ruleset(text):  # a YAML file that is not a ruleset (a scenario, CI settings, ...)
            store.close(uri)
            publish(uri, version, [])
            return
        doc = await asyncio.get_running_loop().run_in_executor(checker, checked, uri, version, text)
        if doc is None or latest.get(uri) != version:
            return  # a newer text is on its way
        store.keep(doc)
        publish(uri, version, lsp_diagnostics(doc))

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: LanguageServer, params: T.DidOpenTextDocumentParams) -> None:
        await check(params.text_document.uri, params.text_document.version)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: LanguageServer, params: T.DidChangeTextDocumentParams) -> None:
        await check(params.text_document.uri, params.text_document.version)

    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: LanguageServer, params: T.DidSaveTextDocumentParams) -> None:
        doc = store.docs.get(params.text_document.uri)
        await check(params.text_document.uri, doc.version if doc else latest.get(params.text_document.uri))

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LanguageServer, params: T.DidCloseTextDocumentParams) -> None:
        store.close(params.text_document.uri)
        latest.pop(params.text_document.uri, None)
        publish(params.text_document.uri, None, [])

    def at(uri: str, pos: T.Position) -> tuple[Document, T.Position] | None:
        """The checked document and the position in its code points (the editor counts UTF-16 units)."""
        doc = store.docs.get(uri)
        return (doc, doc.from_client(pos)) if doc else None

    def typed(uri: str, pos: T.Position) -> tuple[Document, T.Position] | None:
        """The checked document with the text the editor sent last, and the position in it: completion reads the
        line being typed there (its names stay the last checked ones). A check of a long ruleset takes a while, and
        completion asked meanwhile read the text as it was before the last keys: after a closing quote typed, the
        line without it (so the whole list of names, whose first an Enter then wrote after the string)."""
        doc = store.docs.get(uri)
        held = server.workspace.text_documents
        wdoc = held.get(uri) or held.get(unquote(uri))
        if doc is not None and wdoc is not None and wdoc.source != doc.text:
            doc = dataclasses.replace(doc, text=wdoc.source)
        return (doc, doc.from_client(pos)) if doc else None

    @server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=[".", " ", "'", '"']))
    def completion(ls: LanguageServer, params: T.CompletionParams) -> T.CompletionList | None:
        found = typed(params.text_document.uri, params.position)
        return complete(*found) if found else None

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: LanguageServer, params: T.HoverParams) -> T.Hover | None:
        found = at(params.text_document.uri, params.position)
        return hover(*found) if found else None

    @server.feature(T.TEXT_DOCUMENT_DEFINITION)
    def on_definition(ls: LanguageServer, params: T.DefinitionParams) -> T.Location | None:
        found = at(params.text_document.uri, params.position)
        return definition(*found) if found else None

    @server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def on_symbols(ls: LanguageServer, params: T.DocumentSymbolParams) -> list[T.DocumentSymbol]:
        doc = store.docs.get(params.text_document.uri)
        return outline(doc) if doc else []

    @server.feature(T.TEXT_DOCUMENT_CODE_ACTION,
                    T.CodeActionOptions(code_action_kinds=[T.CodeActionKind.QuickFix]))
    def on_code_action(ls: LanguageServer, params: T.CodeActionParams) -> list[T.CodeAction]:
        doc = store.docs.get(params.text_document.uri)
        return quick_fixes(doc, params) if doc else []

    return server


__all__ = ["make_server", "MAX_DOCUMENT"]
