"""The pygls server: one small handler per LSP feature, over the documents the store has checked."""

from __future__ import annotations

import asyncio

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from rulecraft.tools.lsp.completion import complete
from rulecraft.tools.lsp.documents import Store, looks_like_ruleset
from rulecraft.tools.lsp.navigation import definition, hover, outline
from rulecraft.tools.lsp.problems import lsp_diagnostics, quick_fixes


SETTLE = 0.02  # seconds a change waits for a newer one before it is checked


def make_server() -> LanguageServer:
    from rulecraft.tools.cli.main import _version

    server = LanguageServer("rulecraft", _version())
    store = Store()
    latest: dict[str, int | None] = {}  # the newest version of each document a change announced

    def check(uri: str, version: int | None) -> None:
        text = server.workspace.get_text_document(uri).source
        if not looks_like_ruleset(text):  # a YAML file that is not a ruleset (a scenario, CI settings, ...)
            store.close(uri)
            server.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=[]))
            return
        doc = store.update(uri, to_fs_path(uri) or uri, text, version)
        server.text_document_publish_diagnostics(
            T.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=lsp_diagnostics(doc)))

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: T.DidOpenTextDocumentParams) -> None:
        check(params.text_document.uri, params.text_document.version)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: LanguageServer, params: T.DidChangeTextDocumentParams) -> None:
        # Changes that queued up while a check ran (one per keystroke) are all dispatched at once:
        # each waits a moment, and only the newest is checked.
        uri, version = params.text_document.uri, params.text_document.version
        latest[uri] = version
        await asyncio.sleep(SETTLE)
        if latest.get(uri) == version:
            check(uri, version)

    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LanguageServer, params: T.DidSaveTextDocumentParams) -> None:
        doc = store.docs.get(params.text_document.uri)
        check(params.text_document.uri, doc.version if doc else None)  # a parent file may have changed

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LanguageServer, params: T.DidCloseTextDocumentParams) -> None:
        store.close(params.text_document.uri)
        server.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))

    @server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=[".", " ", "'", '"']))
    def completion(ls: LanguageServer, params: T.CompletionParams) -> T.CompletionList | None:
        doc = store.docs.get(params.text_document.uri)
        return complete(doc, params.position) if doc else None

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: LanguageServer, params: T.HoverParams) -> T.Hover | None:
        doc = store.docs.get(params.text_document.uri)
        return hover(doc, params.position) if doc else None

    @server.feature(T.TEXT_DOCUMENT_DEFINITION)
    def on_definition(ls: LanguageServer, params: T.DefinitionParams) -> T.Location | None:
        doc = store.docs.get(params.text_document.uri)
        return definition(doc, params.position) if doc else None

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
