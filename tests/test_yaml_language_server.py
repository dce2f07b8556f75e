"""What an editor user is told by yaml-language-server (the YAML support of VS Code and others) with our schema.

The server comes from npm into .venv/node (`make setup` puts it there when npm is on the
machine; this test installs it there itself otherwise). Without Node or npm, or when the
install fails, the tests skip and say why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from lsp_client import LspClient

ROOT = Path(__file__).resolve().parents[1]
NODE_DIR = Path(os.environ.get("RULECRAFT_NODE_DIR", ROOT / ".venv" / "node"))
PACKAGE = "yaml-language-server@1"
SCHEMA = ROOT / "schema" / "ruleset.schema.json"
HEADER = """\
ruleset: demo
title: Demo
players: {min: 2, max: 4}
start: game
"""


def server_command() -> list[str]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not on this machine: yaml-language-server cannot run")
    script = NODE_DIR / "node_modules" / "yaml-language-server" / "bin" / "yaml-language-server"
    if not script.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("npm is not on this machine: cannot install yaml-language-server")
        NODE_DIR.mkdir(parents=True, exist_ok=True)
        try:
            done = subprocess.run([npm, "install", "--prefix", str(NODE_DIR), "--no-audit", "--no-fund", "--silent", PACKAGE],
                                  capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            pytest.skip(f"npm install {PACKAGE} took over 5 minutes")
        if done.returncode != 0 or not script.exists():
            pytest.skip(f"npm install {PACKAGE} failed: {(done.stderr or done.stdout).strip()[-300:]}")
    return [node, str(script), "--stdio"]


@pytest.fixture(scope="module")
def yls(tmp_path_factory):
    folder = tmp_path_factory.mktemp("yls")
    settings = {"yaml": {"schemas": {SCHEMA.as_uri(): ["*.yaml"]}, "validate": True, "completion": True,
                         "hover": True, "format": {"enable": False}}}
    client = LspClient(server_command(), settings)
    client.initialize(folder)
    client.notify("workspace/didChangeConfiguration", {"settings": settings})
    client.folder = folder
    yield client
    client.close()


def open_text(yls, name: str, text: str) -> tuple[str, list]:
    path = yls.folder / name
    path.write_text(text, encoding="utf-8")
    uri = yls.open(path)
    return uri, yls.wait_diagnostics(uri)


def items(result) -> list[str]:
    return [i["label"] for i in (result["items"] if isinstance(result, dict) else result)]


def test_a_mistyped_step_key_is_an_unknown_key_with_the_allowed_keys_at_its_line(yls):
    text = HEADER + "sequences:\n  game:\n    steps:\n      - iff: \"true\"\n        then:\n          - \"end game\"\n"
    uri, diags = open_text(yls, "iff.yaml", text)
    on_line = [d for d in diags if d["range"]["start"]["line"] == 7]
    unknown = [d for d in on_line if d["message"].startswith("Unknown key")]
    assert unknown, diags
    (d,) = unknown
    assert d["range"]["start"]["character"] == 8 and d["range"]["end"]["character"] == 11  # the key 'iff' itself
    assert d["message"] == "Unknown key: an if step takes only id, label, source, note, because, if, then, else."
    assert not [x for x in diags if "Matches a schema that is not allowed" in x["message"]]


def test_a_valid_bundled_ruleset_gets_no_schema_complaint(yls):
    text = (ROOT / "rulesets" / "dml" / "dml.yaml").read_text(encoding="utf-8")
    text = text.replace("# yaml-language-server: $schema=", "# schema: ", 1)  # the settings' schema, not a relative path
    uri, diags = open_text(yls, "dml.yaml", text)
    assert diags == []


def test_completion_of_step_keys_and_top_level_keys_without_duplicates(yls):
    text = HEADER + "sequences:\n  game:\n    steps:\n      - \"end game\"\n      - \n"
    uri, _ = open_text(yls, "complete.yaml", text)
    step = items(yls.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                          "position": {"line": 8, "character": 8}}))
    assert {"do", "call", "if", "while", "repeat", "loop", "for_each", "choose", "sealed", "stack", "then", "until"} <= set(step)
    assert len(step) == len(set(step))
    top = items(yls.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                         "position": {"line": 4, "character": 0}}))
    assert {"parameters", "dice", "tables", "zones", "triggers"} <= set(top)
    assert len(top) == len(set(top)), sorted(top)


def test_the_old_trigger_key_on_is_flagged_as_deprecated(yls):
    text = HEADER + "sequences:\n  game:\n    steps:\n      - \"end game\"\ntriggers:\n  - on: drawn\n    run: game\n"
    uri, diags = open_text(yls, "on.yaml", text)
    assert [d["message"] for d in diags] == ["Write 'event:' instead of 'on:'."]
    assert diags[0]["range"]["start"]["line"] == 9
