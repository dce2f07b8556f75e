"""The language server's work is bounded by the document (issue 38, item 7): a position past the end is clamped, a
file with CR alone for line ends is read as the editor reads it, a hover shows a ruleset's text as written (no
image, link or HTML from it), and a closed document is released. Work is counted, never timed."""

from __future__ import annotations

import re
import sys

from lsprotocol import types as T

from lsp_client import LspClient
from rulecraft.tools.lsp import completion, documents
from rulecraft.tools.lsp.navigation import hover
from rulecraft.tools.lsp.problems import lsp_diagnostics, quick_fixes

SERVER = [sys.executable, "-c", "import sys; from rulecraft.tools.cli.main import main; sys.exit(main(['lsp']))"]
SMALL = ("ruleset: s\ntitle: S\nplayers: {min: 2, max: 2}\nvariables:\n  x: 0\n  score: 0\nstart: game\n"
         "sequences:\n  game:\n    steps:\n      - do: set x = scroe\n")


def test_a_position_past_the_end_is_clamped_and_costs_lines_of_the_document(monkeypatch):
    doc = documents.Store().update("file:///s.yaml", "/s.yaml", SMALL, 1)
    seen = []
    real = documents.Document.line
    monkeypatch.setattr(documents.Document, "line", lambda self, n: seen.append(n) or real(self, n))
    for pos in (T.Position(10**9, 0), T.Position(10**9, 10**9), T.Position(3, 10**9), T.Position(0, 10**9)):
        at = doc.from_client(pos)
        assert 0 <= at.line < len(doc.lines) and 0 <= at.character <= len(doc.lines[at.line])
        completion.complete(doc, at)
        hover(doc, at)
    assert len(seen) <= 8 * len(doc.lines)  # lines looked at: a few passes over the document, never 10**9


def test_a_completion_at_line_a_billion_is_answered_and_so_is_the_next_request(tmp_path):
    client = LspClient(SERVER)
    try:
        client.initialize(tmp_path)
        uri = client.open(tmp_path / "s.yaml", SMALL)
        client.wait_diagnostics(uri)
        far = client.call("textDocument/completion", {"textDocument": {"uri": uri},
                                                      "position": {"line": 10**9, "character": 10**9}})
        assert "error" not in far
        near = client.call("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 10, "character": 16}})
        assert "error" not in near and "variable" in str(near["result"])
        client.close()
        assert client.proc.wait(timeout=60) == 0
    finally:
        if client.proc.poll() is None:
            client.proc.kill()
            client.proc.wait()


def test_cr_alone_ends_lines_as_the_editor_counts_them():
    text = SMALL.replace("\n", "\r")
    doc = documents.build("file:///s.yaml", "/s.yaml", text, 1)
    assert doc.lines == SMALL.split("\n")
    got = [d for d in lsp_diagnostics(doc) if d.code == "E301"]
    assert len(got) == 1
    line = SMALL.split("\n")[got[0].range.start.line]
    assert line[got[0].range.start.character:got[0].range.end.character] == "scroe"
    fixes = quick_fixes(doc, T.CodeActionParams(T.TextDocumentIdentifier(doc.uri), got[0].range,
                                                T.CodeActionContext(diagnostics=[T.Diagnostic(
                                                    got[0].range, got[0].message, source=got[0].source,
                                                    data=got[0].data)])))
    assert [f.title for f in fixes][:1] == ["Change 'scroe' to 'score'"]


def test_a_hover_shows_the_ruleset_s_markdown_as_written():
    bad = "![x](https://example.invalid/p.png) [run](command:workbench.action.terminal.new) <img src=x> **b**"
    text = SMALL.replace("variables:\n", f"parameters:\n  bet: {{default: 2, doc: '{bad}'}}\nvariables:\n") \
        .replace("set x = scroe", "set x = bet")
    doc = documents.Store().update("file:///s.yaml", "/s.yaml", text, 1)
    line = next(i for i, ln in enumerate(doc.lines) if "set x = bet" in ln)
    shown = hover(doc, T.Position(line, doc.lines[line].index("bet") + 1)).contents.value
    assert "example.invalid" in shown  # the text is there, its marks escaped
    ruleset_part = shown.split("\n\n", 1)[1]
    assert not re.search(r"(?<!\\)[!\[\]()<>*]", ruleset_part), shown  # no mark left to act on


def test_a_closed_document_is_released():
    store = documents.Store()
    for i in range(40):
        uri = f"file:///d{i}.yaml"
        store.update(uri, f"/d{i}.yaml", SMALL, 1)
        store.close(uri)
    assert store.docs == {} and store.last_model == {}
