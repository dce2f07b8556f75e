"""`rulecraft lsp` driven by a real LSP client over stdio, on the bundled rulesets and on broken copies of them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cli_fork import spawn_cli
from lsp_client import LspClient
from rulecraft.loader import load_ruleset

ROOT = Path(__file__).resolve().parents[1]
DML = ROOT / "rulesets" / "dml"
BUNDLED = sorted((ROOT / "rulesets").rglob("*.yaml"))


def server(memory: int | None = None):
    """What starts `rulecraft lsp`: a child process forked from one with the command line and the server's modules
    imported (tests/cli_fork.py; a fresh Python took about a second of CPU to start each of the file's 20 servers),
    under an RLIMIT_AS of `memory` bytes if given."""
    return lambda: spawn_cli(["lsp"], memory=memory, preload=("rulecraft.tools.lsp.server",))


SERVER = server()


@pytest.fixture(scope="module")
def lsp():
    client = LspClient(SERVER)
    caps = client.initialize(ROOT)["capabilities"]
    assert caps["completionProvider"] and caps["hoverProvider"] and caps["definitionProvider"]
    yield client
    client.close()
    assert client.proc.returncode == 0


@pytest.fixture()
def broken(tmp_path):
    """Copies of dml and its variants, to break."""
    for f in DML.glob("*.yaml"):
        shutil.copy(f, tmp_path / f.name)
    return tmp_path


def pos_of(text: str, needle: str, offset: int = 0) -> dict:
    """The LSP position of the first `needle` in `text`, plus `offset` characters."""
    before = text[: text.index(needle) + offset]
    return {"line": before.count("\n"), "character": len(before) - (before.rfind("\n") + 1)}


def at(uri: str, pos: dict) -> dict:
    return {"textDocument": {"uri": uri}, "position": pos}


def edit(lsp, path: Path, old: str, new: str, version: int = 2) -> tuple[str, str, list]:
    text = path.read_text(encoding="utf-8")
    assert old in text
    text = text.replace(old, new, 1)
    uri = lsp.open(path, path.read_text(encoding="utf-8"))
    lsp.wait_diagnostics(uri)
    lsp.change(uri, text, version)
    return uri, text, lsp.wait_diagnostics(uri)


# --- diagnostics -----------------------------------------------------------


@pytest.mark.parametrize("path", BUNDLED, ids=[p.stem for p in BUNDLED])
def test_bundled_rulesets_get_exactly_the_validators_findings(lsp, path):
    uri = lsp.open(path)
    got = lsp.wait_diagnostics(uri)
    expected = load_ruleset(str(path)).diagnostics
    assert [(d["code"], d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1) for d in got] == \
        [(d.code, d.span.line, d.span.col) for d in expected]
    assert not [d for d in got if d["severity"] == 1]


def test_every_problem_at_once_schema_and_rules_language(lsp, broken):
    path = broken / "dml.yaml"
    text = path.read_text(encoding="utf-8")
    text = text.replace("to kings_pile;", "to kings_pil;", 1).replace("      - if: ", "      - iff: ", 1)
    uri = lsp.open(path, text)
    got = lsp.wait_diagnostics(uri)
    by_code = {d["code"]: d for d in got}
    assert {"E205", "E301"} <= set(by_code), got  # the schema's finding does not hide the rules language's
    name = by_code["E301"]
    assert name["range"] == {"start": pos_of(text, "kings_pil;"), "end": pos_of(text, "kings_pil;", len("kings_pil"))}
    assert name["message"].startswith("unknown name 'kings_pil'") and "hint: did you mean 'kings_pile'" in name["message"]
    assert name["source"] == "rulecraft" and name["severity"] == 1
    step = by_code["E205"]
    assert step["range"]["start"] == pos_of(text, "iff:")


def test_change_rechecks_and_a_quick_fix_repairs(lsp, broken):
    path = broken / "dml.yaml"
    uri, text, got = edit(lsp, path, "to kings_pile;", "to kings_pil;")
    assert [d["code"] for d in got] == ["E301"]
    actions = lsp.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": got[0]["range"],
                                                      "context": {"diagnostics": got}})
    first = actions[0]
    assert first["title"] == "Change 'kings_pil' to 'kings_pile'" and first["isPreferred"] is True
    (change,) = first["edit"]["changes"][uri]
    assert change["newText"] == "kings_pile" and change["range"] == got[0]["range"]
    fixed = text.replace("to kings_pil;", "to kings_pile;", 1)
    lsp.change(uri, fixed, 3)
    assert lsp.wait_diagnostics(uri) == []


def test_a_variant_is_checked_through_extends(lsp, broken):
    path = broken / "dml-classic.yaml"
    uri, text, got = edit(lsp, path, "if: \"card_off == 'first_in_order'\"", "if: \"card_of == 'first_in_order'\"")
    (d,) = got
    assert d["code"] == "E301" and "did you mean 'card_off'" in d["message"]
    assert d["range"]["start"] == pos_of(text, "card_of ==")
    # a problem in the parent shows at the child's 'extends:' line, naming the parent's position
    parent = broken / "dml.yaml"
    parent.write_text(parent.read_text(encoding="utf-8").replace("to kings_pile;", "to kings_pil;", 1), encoding="utf-8")
    lsp.change(uri, text.replace("card_of ==", "card_off =="), 3)
    (d,) = lsp.wait_diagnostics(uri)
    assert d["range"]["start"] == pos_of(text, "extends:") and d["message"].startswith("in dml.yaml line ")


def test_a_problem_an_override_makes_in_the_parent_shows_at_that_override(lsp, tmp_path):
    """Session 19: a variant replaced pig's roll with a step that sets no 'r'; the parent's later steps, which read it,
    were put at 'extends:' as 'in /home/you/rulecraft/rulesets/examples/pig.yaml:59:18: unknown name 'r'', three times, with no
    word of the override that made them. They show at the override, naming the parent as the designer knows it."""
    from rulecraft.bundled import resolve

    shutil.copy(resolve("pig"), tmp_path / "pig.yaml")
    variant = tmp_path / "house.yaml"
    text = ("ruleset: house\nextends: pig\ntitle: House\nversion: '1'\nsource: tests\noverrides:\n"
            "  - remove: turn.start\n  - replace: turn.roll\n    with: [\"roll 2d6 by player\"]\n")
    variant.write_text(text, encoding="utf-8")
    got = lsp.wait_diagnostics(lsp.open(variant, text))
    assert got and {d["code"] for d in got} == {"E301"}, got
    for d in got:  # (the first override names the same sequence: the one that reads first is taken)
        assert d["range"]["start"] == pos_of(text, "remove: turn.start"), d
        assert d["message"].startswith("in pig.yaml line ") and "in its sequence 'turn'" in d["message"], d
        assert "unknown name 'r'" in d["message"]


# --- completion --------------------------------------------------------------


def labels(result) -> dict:
    items = result["items"] if isinstance(result, dict) else result
    return {i["label"]: i for i in items}


def test_completion_inside_rules_language_strings(lsp):
    path = DML / "dml.yaml"
    text = path.read_text(encoding="utf-8")
    uri = lsp.open(path)
    lsp.wait_diagnostics(uri)
    got = labels(lsp.request("textDocument/completion", at(uri, pos_of(text, "roll pair by player against b", 29))))
    assert got["black_market_target"]["detail"] == "parameter, default 7"  # parameters
    assert "hoard" in got and "zone" in got["hoard"]["detail"]  # zones
    assert got["seize_tie"]["detail"] == "option: 'first_in_order', 'nobody'"  # options and their choices
    assert got["count"]["detail"].startswith("count(")  # built-ins with their signatures
    assert got["suits"]["detail"].startswith("table: ") and got["market_count"]["detail"] == "market_count()"
    assert got["setup"]["detail"] == "stage: Setup Stage"  # sequences
    columns = labels(lsp.request("textDocument/completion", at(uri, pos_of(text, "wheel[t].primary", 9))))
    assert "primary" in columns and "secondary" in columns and "hoard" not in columns  # a table's columns
    after_player = labels(lsp.request("textDocument/completion", at(uri, pos_of(text, "to player.treasury", 10))))
    assert {"treasury", "court", "seat", "name"} <= set(after_player) and "hoard" not in after_player
    choices = labels(lsp.request("textDocument/completion", at(uri, pos_of(text, "seize_tie == '", 14))))
    assert set(choices) == {"first_in_order", "nobody"}


def test_completion_of_step_keys(lsp, broken):
    path = broken / "dml.yaml"
    text = path.read_text(encoding="utf-8")
    where = text.index("\n      - call: setup") + 1
    text = text[:where] + "      - \n" + text[where:]
    uri = lsp.open(path, text)
    lsp.wait_diagnostics(uri)
    got = labels(lsp.request("textDocument/completion", at(uri, {"line": text[:where].count("\n"), "character": 8})))
    assert {"do", "call", "if", "while", "repeat", "loop", "for_each", "choose", "sealed", "stack", "then", "id"} <= set(got)
    assert len(got) == len(set(got))


def test_completion_of_call_targets_and_events(lsp):
    path = DML / "dml.yaml"
    text = path.read_text(encoding="utf-8")
    uri = lsp.open(path)
    lsp.wait_diagnostics(uri)
    got = labels(lsp.request("textDocument/completion", at(uri, pos_of(text, "- call: setup", 8))))
    assert {"setup", "round", "turn"} <= set(got) and "hoard" not in got
    events = labels(lsp.request("textDocument/completion", at(uri, pos_of(text, "event: drawn", 7))))
    assert {"drawn", "moved", "rolled"} <= set(events)


# --- hover, definition, outline ------------------------------------------------


def hover_text(lsp, uri, pos) -> str:
    return lsp.request("textDocument/hover", at(uri, pos))["contents"]["value"]


def test_hover(lsp):
    path = DML / "dml.yaml"
    text = path.read_text(encoding="utf-8")
    uri = lsp.open(path)
    lsp.wait_diagnostics(uri)
    builtin = hover_text(lsp, uri, pos_of(text, "count(", 1))
    assert "count(" in builtin and "->" in builtin  # signature and doc
    param = hover_text(lsp, uri, pos_of(text, "against black_market_target", 10))
    assert "default 7" in param and "fixed target value of a Black Market" in param
    seq = hover_text(lsp, uri, pos_of(text, "- call: setup", 9))
    assert "**Setup Stage**" in seq and "source: dml-gameplay.html" in seq
    zone = hover_text(lsp, uri, pos_of(text, "to player.treasury", 12))
    assert zone is not None
    zone = hover_text(lsp, uri, pos_of(text, "if c is merchant_king] to kings_pile", 32))
    assert "visibility:" in zone


def test_definition_across_extends(lsp):
    path = DML / "dml-classic.yaml"
    text = path.read_text(encoding="utf-8")
    uri = lsp.open(path)
    lsp.wait_diagnostics(uri)
    # 'black_market_target' is a parameter of the parent, dml
    loc = lsp.request("textDocument/definition", at(uri, pos_of(text, "black_market_target -", 3)))
    assert loc["uri"] == (DML / "dml.yaml").as_uri()
    parent = (DML / "dml.yaml").read_text(encoding="utf-8").split("\n")
    assert parent[loc["range"]["start"]["line"]].lstrip().startswith("black_market_target:")
    # an option of the variant itself
    loc = lsp.request("textDocument/definition", at(uri, pos_of(text, "black_market_modifier ==", 3)))
    assert loc["uri"] == uri
    assert text.split("\n")[loc["range"]["start"]["line"]].lstrip().startswith("black_market_modifier:")


def test_outline_lists_the_sequences(lsp):
    path = DML / "dml.yaml"
    uri = lsp.open(path)
    lsp.wait_diagnostics(uri)
    symbols = lsp.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    names = [s["name"] for s in symbols]
    assert names[:3] == ["game", "setup", "roll_off"] and len(names) == len(set(names))
    model = load_ruleset(str(path)).ruleset
    assert set(names) == set(model.sequences)


# --- the schema verb and the set-up in docs/editors.md ---------------------------


def test_schema_verb_writes_the_schema(tmp_path, capsys):
    import json

    from rulecraft.loader.schema import load_schema
    from rulecraft.tools.cli.main import main

    assert main(["schema", "-o", str(tmp_path / "s.json")]) == 0
    assert json.loads((tmp_path / "s.json").read_text(encoding="utf-8")) == load_schema()
    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == load_schema()
    assert main(["schema", "-o", str(tmp_path / "no" / "such" / "s.json")]) == 1
    assert "cannot write" in capsys.readouterr().err


def test_editor_set_up_snippets_parse():
    """The JSON and TOML of docs/editors.md are what those editors read: they must at least parse."""
    import json
    import re

    tomllib = pytest.importorskip("tomllib")  # Python 3.11 on
    text = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```(\w+)\n(.*?)```", text, re.S)
    kinds = [k for k, _ in blocks]
    assert {"json", "toml", "lua", "js", "sh", "yaml"} <= set(kinds)
    for kind, body in blocks:
        body = "\n".join(line[3:] if line.startswith("   ") else line for line in body.split("\n"))
        if kind == "json":
            json.loads(body if body.lstrip().startswith("{") else "{" + body + "}")
        elif kind == "toml":
            config = tomllib.loads(body)
            assert config["language-server"]["rulecraft"] == {"command": "rulecraft", "args": ["lsp"]}
    assert (ROOT / "docs" / "images" / "editor-nvim-diagnostic.png").stat().st_size > 10_000


def test_remembered_parses_follow_the_text_and_its_place(tmp_path):
    """An editor re-checks the same file again and again: a parse remembered from an earlier check must
    give the same findings, and a string that moved must be reported where it now is."""
    from rulecraft.loader import load_text

    path = DML / "dml.yaml"
    text = path.read_text(encoding="utf-8").replace("to kings_pile;", "to kings_pil;", 1)
    first = load_text(str(path), text).diagnostics
    again = load_text(str(path), text).diagnostics
    assert first == again and [d.code for d in first] == ["E301"]
    moved = load_text(str(path), "# one more line\n" + text).diagnostics
    assert [(d.code, d.span.line, d.span.col) for d in moved] == [("E301", first[0].span.line + 1, first[0].span.col)]
    wider = load_text(str(path), text.replace("to kings_pil;", "to  kings_pil;", 1)).diagnostics
    assert [(d.span.line, d.span.col) for d in wider] == [(first[0].span.line, first[0].span.col + 1)]


def test_yaml_files_that_are_not_rulesets_are_left_alone(lsp, tmp_path):
    other = tmp_path / "compose.yaml"
    uri = lsp.open(other, "services:\n  web:\n    image: nginx\n")
    assert lsp.wait_diagnostics(uri) == []
    assert lsp.request("textDocument/completion", at(uri, {"line": 1, "character": 2})) is None
    lsp.change(uri, "ruleset: demo\nservices: {}\n", 2)  # once it says it is a ruleset, it is checked
    assert {d["code"] for d in lsp.wait_diagnostics(uri)} >= {"E201", "E202"}


def test_the_old_trigger_key_gets_a_warning_and_a_fix(lsp, broken):
    path = broken / "dml.yaml"
    uri, text, got = edit(lsp, path, "    event: drawn", "    on: drawn")
    (d,) = got
    assert d["code"] == "W312" and d["severity"] == 2 and d["range"]["start"] == pos_of(text, "on: drawn")
    (fix,) = lsp.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": d["range"],
                                                     "context": {"diagnostics": got}})
    assert fix["title"] == "Change 'on' to 'event'"


def test_a_burst_of_changes_ends_with_the_newest_text_checked(lsp, broken):
    path = broken / "dml.yaml"
    text = path.read_text(encoding="utf-8")
    uri = lsp.open(path, text)
    lsp.wait_diagnostics(uri)
    for version, name in enumerate(["kings_pil", "kings_pi", "kings_p", "kings_", "kings_pile", "kings_pilex"], 2):
        lsp.change(uri, text.replace("to kings_pile;", f"to {name};", 1), version)
    got = lsp.wait_diagnostics(uri, until=lambda d: any("kings_pilex" in x["message"] for x in d))
    assert [d["code"] for d in got] == ["E301"]


def test_definition_of_a_sequence_function_zone_and_table(lsp):
    path = DML / "dml.yaml"
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    uri = lsp.open(path)
    lsp.wait_diagnostics(uri)

    def target(needle: str, offset: int) -> str:
        loc = lsp.request("textDocument/definition", at(uri, pos_of(text, needle, offset)))
        assert loc["uri"] == uri
        return lines[loc["range"]["start"]["line"]].strip()

    assert target("- call: setup", 9).startswith("setup:")  # a sequence in 'call:'
    assert target("to kings_pile;", 4).startswith("kings_pile:")  # a zone
    assert target("wheel[t].primary", 1).startswith("wheel:")  # a table
    assert target('if: "market_count() >=', 6).startswith("market_count:")  # a function


def test_a_garbled_message_is_answered_and_the_server_goes_on():
    client = LspClient(SERVER)
    try:
        client.initialize(ROOT)
        body = b"not json"
        client.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        client.proc.stdin.flush()
        uri = client.open(DML / "dml-2016.yaml")  # still serving
        assert client.wait_diagnostics(uri) == []
    finally:
        client.close()
    assert client.proc.returncode == 0
    log = client.log()
    assert "not JSON" in log and "Traceback" not in log


def test_completion_knows_where_it_is(lsp, broken):
    path = broken / "dml.yaml"
    text = path.read_text(encoding="utf-8")
    where = text.index("\n      - call: setup") + 1
    text = text[:where] + "      - mov\n" + text[where:]
    uri = lsp.open(path, text)
    lsp.wait_diagnostics(uri)
    line = text[:where].count("\n")
    got = labels(lsp.request("textDocument/completion", at(uri, {"line": line, "character": 11})))
    assert {"do", "call"} <= set(got) and {"hoard", "count"} <= set(got)  # a step key, or a step as text
    block = labels(lsp.request("textDocument/completion", at(uri, pos_of(text, "          move [c for c in event_deck if c is resource and c.value == 2]", 15))))
    assert "event_deck" in block  # a line inside 'do: >-'
    top = lsp.request("textDocument/completion", at(uri, {"line": text[:text.index("\nzones:")].count("\n") + 1, "character": 3}))
    assert labels(top) == {}  # a top-level key: the schema's business, not the rules language's
    zone_name = lsp.request("textDocument/completion", at(uri, pos_of(text, "  event_deck: {", 4)))
    assert labels(zone_name) == {}



def test_no_completion_after_a_closed_string(lsp):
    """The closing quote is a trigger character: a list opened after it took the Enter that ends the line and wrote
    its first name after the string (`do: "shuffle event_deck"abs`). After the quote there is nothing to complete;
    inside the string there still is."""
    path = DML / "dml.yaml"
    text = path.read_text(encoding="utf-8")
    uri = lsp.open(path)
    lsp.wait_diagnostics(uri)
    for needle in ('do: "draw from event_deck to dealer_hand as card"', '- "draw from event_deck to dealer_hand as card"',
                   'if: "not empty(event_deck)"'):
        after = labels(lsp.request("textDocument/completion", at(uri, pos_of(text, needle, len(needle)))))
        assert after == {}, needle
        inside = labels(lsp.request("textDocument/completion", at(uri, pos_of(text, needle, len(needle) - 3))))
        assert "event_deck" in inside and "count" in inside, needle
    # the quote typed while the text before it is still being checked: the line as typed decides, not as checked
    needle = 'if: "not empty(event_deck)"'
    before = text.replace(needle, needle[:-1], 1)  # the closing quote not typed yet
    lsp.change(uri, before, 2)
    lsp.wait_diagnostics(uri)
    lsp.change(uri, text, 3)  # typed: answered before the check of this text has run
    assert labels(lsp.request("textDocument/completion", at(uri, pos_of(text, needle, len(needle))))) == {}

# --- a hostile client (issue 25): bounded reads, a reply to every request, positions in UTF-16 -------------

MEMORY_CAP = 1 << 30  # bytes of address space the server runs in for these tests (RLIMIT_AS)


@pytest.fixture()
def capped():
    client = LspClient(server(MEMORY_CAP))
    client.initialize(ROOT)
    yield client
    if client.proc.poll() is None:
        client.close()


def _log(client) -> str:
    return client.log()


def _stopped(client) -> int:
    client.proc.stdin.close()
    return client.proc.wait(timeout=60)


def test_a_huge_content_length_is_read_through_in_bounded_memory_and_answered(capped):
    head = b'{"jsonrpc":"2.0","id":77,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x'
    capped.raw(b"Content-Length: 40000000\r\n\r\n" + head + b"x" * (40_000_000 - len(head)))
    reply = capped.reply(77)
    assert reply["error"]["code"] == -32600 and "over the server's limit" in reply["error"]["message"]
    assert capped.request("textDocument/hover", at("file:///nothing.yaml", {"line": 0, "character": 0})) is None
    capped.raw(b"Content-Length: 99999999999999\r\n\r\n" + b"x" * 1000)  # then the editor is gone
    assert _stopped(capped) == 1  # neither shutdown nor exit: 1, not a MemoryError and exit 3
    assert "Traceback" not in _log(capped) and "MemoryError" not in _log(capped)


def test_an_endless_header_line_does_not_grow_the_server(capped):
    capped.raw(b"X-Junk: " + b"y" * 30_000_000 + b"\r\n")
    capped.raw(b"Content-Length: abc\r\n\r\n")  # and a length that is not one
    assert capped.request("textDocument/hover", at("file:///nothing.yaml", {"line": 0, "character": 0})) is None
    capped.close()  # (then every line of its log is read: the reply can come before the log's line is)
    assert capped.proc.returncode == 0
    assert "header line longer than" in _log(capped) and "not a number of bytes" in _log(capped)


@pytest.mark.parametrize("params", [{"textDocument": 5}, None, [], {"textDocument": {"uri": "file:///x"}, "position": "here"}],
                         ids=["wrong type", "none", "a list", "a bad position"])
def test_a_request_with_invalid_params_gets_an_error_reply(lsp, params):
    reply = lsp.call("textDocument/hover", params, timeout=30)
    assert reply["error"]["code"] == -32602 and "textDocument/hover" in reply["error"]["message"]


def test_every_request_gets_a_reply(capped):
    for body in (b"[]", b'{"jsonrpc":"2.0","id":[1],"method":"hover"}', b'{"jsonrpc":"2.0","id":5,"method":7}',
                 b"[" * 100_000):  # not an object, an id that is a list, a method that is a number, too deep
        capped.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        assert "error" in capped.reply(5 if b"method\":7" in body else None)
    assert capped.call("no/such/method", {})["error"]["code"] == -32601
    assert capped.call("textDocument/completion", {"textDocument": {"uri": "file:///not-open.yaml"},
                                                   "position": {"line": 0, "character": 0}})["result"] is None
    assert capped.request("shutdown", None) is None
    assert capped.call("textDocument/hover", at("file:///x.yaml", {"line": 0, "character": 0}))["error"]["code"] == -32600
    capped.notify("exit", None)
    assert capped.proc.wait(timeout=30) == 0
    log = _log(capped)
    assert "Traceback" not in log and all(len(line) < 600 for line in log.splitlines())


def test_exit_without_shutdown_is_exit_code_1(capped):
    capped.notify("exit", None)
    assert capped.proc.wait(timeout=30) == 1


def test_a_lone_surrogate_is_a_diagnostic_not_a_python_error(lsp, tmp_path):
    text = (DML / "dml-2016.yaml").read_text(encoding="utf-8").replace("title: ", "title: \ud800 ", 1)
    uri = lsp.open(tmp_path / "dml-2016.yaml", text)
    got = lsp.wait_diagnostics(uri)
    assert [d["code"] for d in got][:1] == ["E003"] and "lone surrogate (U+D800)" in got[0]["message"]
    assert got[0]["range"]["start"] == pos_of(text, "\ud800")
    assert not [d for d in got if "Unicode" in d["message"] or "codec" in d["message"]]


def _utf16_apply(text: str, edit_: dict) -> str:
    """Apply one LSP text edit as an editor does: positions count UTF-16 code units."""
    lines = text.split("\n")
    rng = edit_["range"]
    assert rng["start"]["line"] == rng["end"]["line"]
    units = lines[rng["start"]["line"]].encode("utf-16-le")
    a, b = 2 * rng["start"]["character"], 2 * rng["end"]["character"]
    lines[rng["start"]["line"]] = (units[:a] + edit_["newText"].encode("utf-16-le") + units[b:]).decode("utf-16-le")
    return "\n".join(lines)


@pytest.mark.parametrize("before", ["🎲🎲", "𝔄", "é🐉x"], ids=["dice", "math letter", "mixed"])
def test_positions_count_utf16_units_after_astral_characters(lsp, broken, before):
    path = broken / "dml.yaml"
    text = path.read_text(encoding="utf-8").replace(
        "      - call: setup", f'      - {{label: "{before}", do: "set x = scroe"}}\n      - call: setup', 1)
    text = text.replace("variables:\n", "variables:\n  x: 0\n  score: 0\n", 1)
    uri = lsp.open(path, text)
    got = [d for d in lsp.wait_diagnostics(uri) if d["code"] == "E301"]
    assert len(got) == 1 and "'scroe'" in got[0]["message"]
    line = text.split("\n")[got[0]["range"]["start"]["line"]]
    start = len(line[: line.index("scroe")].encode("utf-16-le")) // 2
    assert got[0]["range"]["start"]["character"] == start and got[0]["range"]["end"]["character"] == start + 5
    actions = lsp.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": got[0]["range"],
                                                      "context": {"diagnostics": got}})
    fixed = _utf16_apply(text, actions[0]["edit"]["changes"][uri][0])
    assert fixed == text.replace("set x = scroe", "set x = score", 1)
    hovered = lsp.request("textDocument/hover", at(uri, {"line": got[0]["range"]["start"]["line"], "character": start - 4}))
    assert hovered is None or "x" in hovered["contents"]["value"]  # 'x', counted in UTF-16: not 'set'


def test_a_20mb_document_is_refused_with_a_diagnostic_in_bounded_memory(capped, tmp_path):
    for size in (20_000_000, 3_000_000):  # over the message limit (not read), and over the document limit
        text = "ruleset: big\ntitle: Big\n" + "# padding\n" * (size // 10)
        uri = capped.open(tmp_path / f"big{size}.yaml", text)
        got = capped.wait_diagnostics(uri)
        assert [d["code"] for d in got] == ["E002"] and "over the limit" in got[0]["message"], got
    capped.close()
    assert capped.proc.returncode == 0


def _sequences(n: int) -> str:
    head = "ruleset: big\ntitle: Big\nplayers: {min: 2, max: 2}\nvariables:\n  x: 0\nstart: s0\nsequences:\n"
    return head + "".join(f"  s{i}:\n    steps:\n      - do: set x = x + {i}\n" + (f"      - call: s{i + 1}\n" if i + 1 < n else "")
                          for i in range(n))


def test_hover_and_completion_answer_while_a_check_runs(lsp, tmp_path):
    path = tmp_path / "big.yaml"
    small = _sequences(3)
    uri = lsp.open(path, small)
    assert lsp.wait_diagnostics(uri) == []
    lsp.change(uri, _sequences(3000), 2)  # a check of several seconds
    where = at(uri, pos_of(small, "set x", 4))
    answered = 0
    while uri not in lsp.diagnostics:
        hover = lsp.request("textDocument/hover", where, timeout=120)
        assert hover is not None and "variable x" in hover["contents"]["value"]  # from the last checked text
        answered += 1 + 0 * len(lsp.request("textDocument/completion", where, timeout=120)["items"])
    # answered one after another while the check ran, not queued behind it: a server that queued them answers one
    # (its answer comes after the check's diagnostics). How many rounds fit in the check depends on the load: 45 to
    # 79 at load 10 alone, 21 in a full run (it asked 25, and failed), so 5, not a count the machine decides
    assert answered >= 5, answered
    assert lsp.wait_diagnostics(uri) == []


def test_documents_never_opened_are_never_read_from_disk(capped, tmp_path):
    capped.notify("textDocument/didSave", {"textDocument": {"uri": "file:///dev/zero"}})
    capped.notify("textDocument/didChange", {"textDocument": {"uri": "file:///dev/zero", "version": 2},
                                             "contentChanges": [{"text": "ruleset: x\n"}]})
    assert capped.request("textDocument/hover", at("file:///dev/zero", {"line": 0, "character": 0})) is None
    path = tmp_path / "ok.yaml"
    uri = capped.open(path, (DML / "dml-2016.yaml").read_text(encoding="utf-8"))
    assert isinstance(capped.wait_diagnostics(uri), list)  # still serving, within its memory cap
    assert not [m for m in list(capped.notifications.queue) if m.get("method") == "window/showMessage"]
    capped.close()
    assert capped.proc.returncode == 0


def test_incremental_edits_cannot_grow_a_document_past_the_limit(capped, tmp_path):
    """Ranged edits that each add 1 MB (sync is incremental: they add up) take the document past the 2 MB a ruleset
    may be: the server says so (E002) and drops it, and goes on answering. (This test once read the diagnostics of
    the open, still stored, as its answer: it passed without looking, and failed when the refusal came first.)"""
    uri = capped.open(tmp_path / "grow.yaml", "ruleset: grow\n")
    assert not [d for d in capped.wait_diagnostics(uri) if d["code"] == "E002"]  # (a ruleset not finished: checked)
    capped.diagnostics.pop(uri, None)  # what comes next is the answer to the edits
    piece = "# " + "x" * 1_000_000 + "\n"
    for version in range(2, 6):
        capped.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                 "contentChanges": [{"range": {"start": {"line": 0, "character": 0},
                                                                               "end": {"line": 0, "character": 0}},
                                                                     "text": piece}]})
    got = capped.wait_diagnostics(uri, until=lambda d: any(x["code"] == "E002" for x in d))
    assert "over the limit of 2,000,000: not checked" in got[0]["message"], got
    hover = capped.call("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
    assert "error" not in hover and hover.get("result") is None  # still answering; nothing held to hover over


# --- the language server's part of the hostile corpus: tests/cases/hostile/lsp-*/case.yaml ---------------------

HOSTILE = ROOT / "tests" / "cases" / "hostile"
LSP_CASES = sorted(p.name for p in HOSTILE.glob("lsp-*") if (p / "case.yaml").is_file())


def _step(client, folder: Path, step: dict) -> None:
    """One step of a case: raw bytes, a request and its reply, a notification, or a document and its diagnostics."""
    if "raw" in step:
        data = step["raw"].encode("utf-8") + step.get("pad_with", "x").encode("utf-8") * (
            step.get("pad", 0) // len(step.get("pad_with", "x")))
        client.raw(data)
        return
    if "notify" in step:
        client.notify(step["notify"], step.get("params"))
        return
    if "open" in step:
        text = step["text"] + step.get("pad_with", "x") * (step.get("pad", 0) // len(step.get("pad_with", "x")))
        uri = client.open(folder / step["open"], text)
        got = client.wait_diagnostics(uri)
        assert [d["code"] for d in got][: len(step["codes"])] == step["codes"], got
        words = " ".join(d["message"] for d in got)
        assert step.get("says", "") in words and not [w for w in step.get("never", []) if w in words], got
        return
    reply = client.call(step["request"], step.get("params")) if "request" in step else client.reply(step["reply_to"])
    if "error" in step:
        assert reply.get("error", {}).get("code") == step["error"], reply
        assert step.get("says", "") in reply["error"]["message"]
    else:
        assert "error" not in reply and reply.get("result") == step["result"], reply


@pytest.mark.parametrize("name", LSP_CASES)
def test_the_hostile_corpus_of_the_language_server(tmp_path, name):
    """Each case: steps sent to a server under a 1 GiB RLIMIT_AS, the replies and diagnostics it must give, how it ends
    and its exit code; no step is timed (the waits only keep a regression from hanging the run)."""
    import shutil

    import yaml

    case = yaml.safe_load((HOSTILE / name / "case.yaml").read_text(encoding="utf-8"))
    folder = tmp_path / name
    shutil.copytree(HOSTILE / name, folder, ignore=shutil.ignore_patterns("case.yaml"))
    client = LspClient(server(MEMORY_CAP))
    try:
        client.initialize(folder)
        for step in case["lsp"]:
            _step(client, folder, step)
        if case["end"] == "close":
            client.close()
        elif case["end"] == "exit":
            client.notify("exit", None)
        code = client.proc.wait(timeout=60) if case["end"] != "eof" else _stopped(client)
    finally:
        if client.proc.poll() is None:
            client.proc.kill()
            client.proc.wait()
    assert code == case["exit"], _log(client)[-2000:]
    log = _log(client)
    assert "Traceback" not in log and "MemoryError" not in log
    assert all(w in log for w in case.get("log", [])), log[-2000:]
