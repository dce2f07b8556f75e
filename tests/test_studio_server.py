"""The studio's server called as a stranger would, without the page (Starlette's in-process client): the token,
the Host and Origin checks, paths that leave the folder, saves that would lose work, the language server over
the websocket, bad and oversized messages, and the shipped page being as new as its sources."""

from __future__ import annotations

import hashlib
import html
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from rulecraft.bundled import resolve  # noqa: E402
from rulecraft.tools.lsp.wire import MAX_MESSAGE  # noqa: E402
from rulecraft.tools.studio.app import make_app  # noqa: E402
from rulecraft.tools.studio.guard import Guard  # noqa: E402

from studio_variants import many_sequences  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BASE = "http://127.0.0.1:5151"
WS = "ws://127.0.0.1:5151/ws"
ORIGIN = {"origin": BASE}
TOKEN = "t0ken-for-the-tests"


@pytest.fixture()
def folder(tmp_path):
    shutil.copy(resolve("pig"), tmp_path / "pig.yaml")
    (tmp_path / "notes.txt").write_text("not a ruleset\n")
    return tmp_path


@pytest.fixture()
def client(folder):
    app = make_app(str(folder), Guard(TOKEN, bound="127.0.0.1"))
    with TestClient(app, base_url=BASE) as c:  # runs the lifespan: the watcher of the folder
        yield c


def refused_socket(c: TestClient, headers: dict) -> str:
    """The reason the studio gives for refusing a websocket at its handshake (403)."""
    with pytest.raises(WebSocketDisconnect) as refused:
        with c.websocket_connect(WS, headers=dict(headers)):
            pass
    assert refused.value.status_code == 403
    return refused.value.content.decode()


def authed(c: TestClient) -> TestClient:
    assert c.get(f"/?token={TOKEN}").status_code == 200  # the page sets the cookie every later request carries
    return c


# ---------------------------------------------------------------------------------------------- who may talk


def test_without_the_token_everything_is_refused(client):
    for url in ("/", "/api/files", "/api/file?path=pig.yaml", "/static/studio.js", "/api/print/aid?path=pig.yaml"):
        r = client.get(url)
        assert r.status_code == 403, url
        assert "token" in r.text
    assert client.post("/api/save", json={"path": "pig.yaml", "text": "x", "digest": None}).status_code == 403
    assert client.get("/?token=wrong").status_code == 403
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect(WS, headers=ORIGIN):
            pass


def test_the_token_opens_the_page_and_its_cookie_the_rest(client):
    r = client.get(f"/?token={TOKEN}")
    assert r.status_code == 200 and "<title>rulecraft studio</title>" in r.text
    assert "script-src 'self'" in r.headers["content-security-policy"]
    cookie = r.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    assert client.get("/api/files").json()["files"] == ["pig.yaml"]
    assert client.get("/static/studio.js").status_code == 200
    # the header form, for a client other than the page
    other = TestClient(client.app, base_url=BASE)
    assert other.get("/api/files", headers={"authorization": f"token {TOKEN}"}).status_code == 200


def test_a_foreign_host_or_origin_gets_nothing(client):
    authed(client)
    # DNS rebinding: a name of the attacker's that resolves to 127.0.0.1
    r = client.get(f"/api/files?token={TOKEN}", headers={"host": "evil.example:5151"})
    assert r.status_code == 403 and "Host" in r.text
    r = client.post("/api/save", json={"path": "pig.yaml", "text": "ruleset: x\n", "digest": None},
                    headers={"origin": "http://evil.example"})
    assert r.status_code == 403 and "Origin" in r.text
    assert client.get("/api/files", headers={"origin": "http://127.0.0.1:9999"}).status_code == 403
    assert client.get("/api/files", headers={"sec-fetch-site": "cross-site"}).status_code == 403
    assert "Origin" in refused_socket(client, {"origin": "http://evil.example"})
    assert "without an Origin" in refused_socket(client, {})  # a websocket always says where its page is from
    assert "Host" in refused_socket(client, {"origin": "http://evil.example:5151", "host": "evil.example:5151"})


@pytest.mark.parametrize("path", ["../x.yaml", "a/../../x.yaml", "/etc/passwd", "..", ".hidden.yaml", "a//b.yaml",
                                  "C:/x.yaml", "notes.txt"])
def test_only_files_inside_the_folder(client, path):
    authed(client)
    assert client.get("/api/file", params={"path": path}).status_code in (403, 404)
    r = client.post("/api/save", json={"path": path, "text": "ruleset: x\n", "digest": None})
    assert r.status_code == 403


def test_a_symlink_out_of_the_folder_is_refused(client, folder, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.yaml").write_text("ruleset: secret\n")
    os.symlink(outside / "secret.yaml", folder / "link.yaml")
    os.symlink(outside, folder / "away")
    authed(client)
    for path in ("link.yaml", "away/secret.yaml"):
        r = client.get("/api/file", params={"path": path})
        assert r.status_code == 403 and "symlink" in r.json()["error"]
        assert client.post("/api/save", json={"path": path, "text": "ruleset: x\n", "digest": None}).status_code == 403
    assert (outside / "secret.yaml").read_text() == "ruleset: secret\n"
    assert "link.yaml" not in client.get("/api/files").json()["files"]


# ---------------------------------------------------------------------------------------------- saving


def test_save_writes_and_refuses_a_file_changed_on_disk(client, folder):
    authed(client)
    got = client.get("/api/file", params={"path": "pig.yaml"}).json()
    assert got["digest"] == hashlib.sha256((folder / "pig.yaml").read_bytes()).hexdigest()
    text = got["text"].replace("title: Pig", "title: Pig, edited")
    r = client.post("/api/save", json={"path": "pig.yaml", "text": text, "digest": got["digest"]})
    assert r.status_code == 200
    assert (folder / "pig.yaml").read_text() == text
    # saved again from the old digest: the file changed since, refused, and the file is as it was
    r = client.post("/api/save", json={"path": "pig.yaml", "text": "ruleset: lost\n", "digest": got["digest"]})
    assert r.status_code == 409 and "changed on disk" in r.json()["error"]
    assert (folder / "pig.yaml").read_text() == text
    assert not [p for p in os.listdir(folder) if p.endswith(".tmp")]


def test_only_ruleset_files_are_written(client, folder):
    authed(client)
    r = client.post("/api/save", json={"path": "x.yaml", "text": "name: ci settings\n", "digest": None})
    assert r.status_code == 403 and "ruleset" in r.json()["error"]
    r = client.post("/api/save", json={"path": "x.py", "text": "ruleset: x\n", "digest": None})
    assert r.status_code == 403
    assert client.post("/api/save", content=b"{not json", headers={"content-type": "application/json"}).status_code == 400
    assert not (folder / "x.yaml").exists() and not (folder / "x.py").exists()


def test_new_rulesets_from_the_template_and_from_a_bundled_one(client, folder):
    from rulecraft.loader import load_ruleset

    authed(client)
    assert client.post("/api/new", json={"path": "mine"}).json() == {"path": "mine.yaml"}
    assert load_ruleset(str(folder / "mine.yaml")).ok
    assert client.post("/api/new", json={"path": "hearts-copy.yaml", "from": "hearts"}).status_code == 200
    copied, bundled = (folder / "hearts-copy.yaml").read_text(), Path(resolve("hearts")).read_text()
    assert copied.split("\n", 1)[1] == bundled.split("\n", 1)[1]  # the same rules
    # its first line names the schema where the copy finds it (the bundled one's ../../schema names nothing there)
    schema = Path(copied.split("\n", 1)[0].removeprefix("# yaml-language-server: $schema="))
    assert schema.is_absolute() and json.loads(schema.read_text())["$id"] == "urn:rulecraft:schema:ruleset:1"
    assert client.post("/api/new", json={"path": "mine"}).status_code == 409  # never over a file
    assert client.post("/api/new", json={"path": "../up"}).status_code in (400, 403)
    # a suffix in capitals is the suffix; a name ending in a dot, or a 'from' that is no name, is refused
    assert client.post("/api/new", json={"path": "Loud.YAML"}).json() == {"path": "Loud.yaml"}
    assert client.post("/api/new", json={"path": "dot.yaml."}).status_code == 400
    assert client.post("/api/new", json={"path": "dots..yaml"}).status_code == 400
    assert client.post("/api/new", json={"path": "listed", "from": ["pig"]}).status_code == 400
    assert not (folder / "listed.yaml").exists() and not list(folder.glob("*..yaml"))



def test_a_variant_of_a_variant(client, folder):
    """New, 'a variant of the open ruleset': a file that extends it, written where the loader finds its parent
    (beside a parent of the folder when the name has no folder), loading as its parent does; a variant of that one
    extends it in turn. A parent the loader would not read (above the new file), or none, is refused."""
    from rulecraft.loader import load_ruleset

    authed(client)
    (folder / "games").mkdir()
    shutil.copy(folder / "pig.yaml", folder / "games" / "pig.yaml")
    assert client.post("/api/new", json={"path": "fast", "extends": "games/pig.yaml"}).json() == {"path": "games/fast.yaml"}
    text = (folder / "games" / "fast.yaml").read_text()
    assert "ruleset: fast\nextends: pig.yaml\n" in text and "docs/format.md" in text
    assert client.post("/api/new", json={"path": "faster", "extends": "games/fast.yaml"}).json() == {
        "path": "games/faster.yaml"}
    assert "extends: fast.yaml\n" in (folder / "games" / "faster.yaml").read_text()
    assert client.post("/api/new", json={"path": "top-pig", "extends": "games/pig.yaml"}).json() == {
        "path": "games/top-pig.yaml"}  # a bare name goes beside its parent
    assert client.post("/api/new", json={"path": "mine/b", "extends": "pig.yaml"}).status_code == 400  # above it
    assert client.post("/api/new", json={"path": "c", "extends": "bundled:dml-classic"}).json() == {"path": "c.yaml"}
    assert "extends: dml-classic\n" in (folder / "c.yaml").read_text()
    for bad in ({"extends": "bundled:nothing"}, {"extends": "notes.txt"}, {"extends": ["pig.yaml"]},
                {"extends": "../pig.yaml"}):
        assert client.post("/api/new", json={"path": "d", **bad}).status_code in (400, 403, 404), bad
    assert not (folder / "d.yaml").exists()
    pig = load_ruleset(str(folder / "games" / "pig.yaml")).ruleset
    for made in ("games/fast.yaml", "games/faster.yaml", "c.yaml"):
        got = load_ruleset(str(folder / made))
        assert got.ok and not got.diagnostics, (made, [str(d) for d in got.diagnostics])
    for n, odd in enumerate(("odd #1: pig.yaml", "odd: pig.yaml")):  # names YAML reads otherwise: quoted
        shutil.copy(folder / "pig.yaml", folder / odd)
        assert client.post("/api/new", json={"path": f"odd{n}", "extends": odd}).status_code == 200
        assert load_ruleset(str(folder / f"odd{n}.yaml")).ok, odd
    faster = load_ruleset(str(folder / "games" / "faster.yaml")).ruleset
    assert faster.name == "faster" and set(faster.sequences) == set(pig.sequences)

def test_printed_pages_and_the_diff(client, folder):
    authed(client)
    aid = client.get("/api/print/aid", params={"path": "pig.yaml"})
    assert aid.status_code == 200 and "Pig" in aid.text and "sandbox" in aid.headers["content-security-policy"]
    book = client.get("/api/print/book", params={"path": "bundled:pig"})
    assert book.status_code == 200 and "<svg" in book.text
    (folder / "pig2.yaml").write_text((folder / "pig.yaml").read_text().replace("default: 100", "default: 50"))
    d = client.get("/api/diff", params={"a": "pig.yaml", "b": "pig2.yaml"}).json()
    assert not d["same"] and "50" in d["text"]
    assert d["svg"] == ""  # no sequence differs: no chart of 'no sequence differs' and a legend, the words say it all
    (folder / "pig3.yaml").write_text((folder / "pig.yaml").read_text().replace("set turn_total = 0", "set turn_total = 1"))
    assert client.get("/api/diff", params={"a": "pig.yaml", "b": "pig3.yaml"}).json()["svg"].startswith("<svg")
    if shutil.which("chromium"):  # the aid's PDF, printed by headless Chromium
        pdf = client.get("/api/print/aid.pdf", params={"path": "pig.yaml", "download": "1"})
        assert pdf.content.startswith(b"%PDF") and "attachment" in pdf.headers["content-disposition"]
    (folder / "broken.yaml").write_text("ruleset: broken\nsequences: 3\n")
    r = client.get("/api/print/aid", params={"path": "broken.yaml"})
    assert r.status_code == 422 and "errors" in r.json()["error"]


# ---------------------------------------------------------------------------------------------- the websocket


class Lsp:
    """A JSON-RPC client over the studio's websocket."""

    def __init__(self, ws):
        self.ws, self.next_id = ws, 0

    def send(self, method, params=None, rid=None):
        msg = {"jsonrpc": "2.0", "method": method, "params": params or {}}
        if rid is not None:
            msg["id"] = rid
        self.ws.send_text(json.dumps(msg))

    def request(self, method, params=None):
        self.next_id += 1
        self.send(method, params, self.next_id)
        return self.until(lambda m: m.get("id") == self.next_id)

    def until(self, want, limit=200):
        for _ in range(limit):
            m = json.loads(self.ws.receive_text())
            if want(m):
                return m
        raise AssertionError("the message never came")

    def start(self, root: Path):
        self.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}})
        self.send("initialized")

    def open(self, path: Path, text: str, version=1):
        self.send("textDocument/didOpen", {"textDocument": {"uri": path.as_uri(), "languageId": "yaml",
                                                            "version": version, "text": text}})
        return self.diagnostics(path, version)

    def change(self, path: Path, text: str, version: int):
        self.send("textDocument/didChange", {"textDocument": {"uri": path.as_uri(), "version": version},
                                             "contentChanges": [{"text": text}]})
        return self.diagnostics(path, version)

    def diagnostics(self, path: Path, version: int):
        return self.until(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                          and m["params"]["uri"] == path.as_uri() and m["params"].get("version") == version)["params"]


def test_problems_and_the_chart_over_the_websocket(client, folder):
    authed(client)
    pig = folder / "pig.yaml"
    text = pig.read_text()
    with client.websocket_connect(WS, headers=ORIGIN) as ws:
        lsp = Lsp(ws)
        lsp.start(folder)
        assert lsp.open(pig, text)["diagnostics"] == []
        line = next(i for i, s in enumerate(text.splitlines()) if "turn_total += r.total" in s)  # 0-based
        got = lsp.request("rulecraft/chart", {"uri": pig.as_uri(), "line": line + 1})["result"]
        assert got["status"] == "ok" and got["sequence"] == "turn" and got["svg"].startswith("<svg")
        svg = html.unescape(got["svg"])  # Graphviz writes '-' in an id as &#45;
        assert got["boxes"] and all(f'id="{b["id"]}"' in svg or f'id="a_{b["id"]}"' in svg for b in got["boxes"])
        assert line + 1 in {b["line"] for b in got["boxes"]}
        # a step that only sets values ('set turn_total = 0; tally turns') is a box, so the cursor on it has a box to
        # outline (it was left out, as the sheets leave the engine's bookkeeping out); steps "players" is the sheets'
        reset = next(i for i, s in enumerate(text.splitlines()) if "- id: start" in s) + 1
        assert reset in {b["line"] for b in got["boxes"]}
        sheets = lsp.request("rulecraft/chart", {"uri": pig.as_uri(), "line": line + 1, "steps": "players"})["result"]
        assert sheets["sequence"] == "turn" and reset not in {b["line"] for b in sheets["boxes"]}
        assert line + 1 in {b["line"] for b in sheets["boxes"]}
        bad_steps = lsp.request("rulecraft/chart", {"uri": pig.as_uri(), "line": 1, "steps": "all"})["error"]
        assert bad_steps["code"] == -32602 and "'steps'" in bad_steps["message"]
        bad = text.replace('"turn_total += r.total"', '"turn_totl += r.total"')
        [d] = lsp.change(pig, bad, 2)["diagnostics"]
        assert d["code"] == "E301" and d["range"]["start"]["line"] == line and "turn_totl" in d["message"]
        assert "hint: did you mean 'turn_total'" in d["message"]
        stale = lsp.request("rulecraft/chart", {"uri": pig.as_uri(), "line": line + 1})["result"]
        assert stale["status"] == "stale" and "errors" in stale["note"]
        fix = lsp.request("textDocument/codeAction", {
            "textDocument": {"uri": pig.as_uri()}, "range": d["range"], "context": {"diagnostics": [d]}})["result"]
        assert fix[0]["edit"]["changes"][pig.as_uri()][0]["newText"] == "turn_total"


def test_a_bad_message_gets_an_error_and_stops_nothing(client, folder):
    authed(client)
    with client.websocket_connect(WS, headers=ORIGIN) as other, \
            client.websocket_connect(WS, headers=ORIGIN) as ws:
        lsp, bystander = Lsp(ws), Lsp(other)
        lsp.start(folder)
        bystander.start(folder)
        ws.send_text("{not json")
        assert lsp.until(lambda m: "error" in m)["error"]["code"] == -32700
        ws.send_text(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": "x" * (MAX_MESSAGE + 1)}))
        big = lsp.until(lambda m: m.get("id") == 7)
        assert big["error"]["code"] == -32600 and "limit" in big["error"]["message"]
        assert lsp.request("rulecraft/chart", {"uri": 3})["error"]["code"] == -32602  # a URI is a string
        assert lsp.request("rulecraft/chart", {"uri": "file:///nowhere.yaml"})["result"]["status"] == "pending"
        assert lsp.request("rulecraft/nothing")["error"]["code"] == -32600
        assert lsp.request("textDocument/hover", {"bogus": True})["error"]["code"] == -32602
        lsp.send("exit")  # ends this page's session only
        with pytest.raises(WebSocketDisconnect):
            for _ in range(50):
                ws.receive_text()
        # the other page and the server go on
        assert bystander.request("shutdown")["result"] is None
    assert client.get("/api/files").status_code == 200


def test_a_change_on_disk_is_told_to_the_page(client, folder):
    authed(client)
    with client.websocket_connect(WS, headers=ORIGIN) as ws:
        lsp = Lsp(ws)
        lsp.start(folder)
        watching = client.app.state.studio
        for _ in range(600):  # the watcher's first look, the one a change is seen against (bounded: a test never hangs)
            if "pig.yaml" in watching.known:
                break
            time.sleep(0.1)
        (folder / "pig.yaml").write_text((folder / "pig.yaml").read_text() + "\n# edited elsewhere\n")
        said = lsp.until(lambda m: m.get("method") == "rulecraft/fileChanged", limit=20)
        assert said["params"]["path"] == "pig.yaml"
        assert said["params"]["digest"] == hashlib.sha256((folder / "pig.yaml").read_bytes()).hexdigest()


# ---------------------------------------------------------------------------------------------- the shipped page


def sources_hash(web: Path) -> str:
    """The hash build.mjs records beside the bundle: every file of src/ and the package files, by path."""
    names = sorted([p.relative_to(web).as_posix() for p in (web / "src").rglob("*") if p.is_file()]
                   + ["package.json", "package-lock.json", "build.mjs"])
    h = hashlib.sha256()
    for name in names:
        h.update(name.encode() + b"\0" + (web / name).read_bytes() + b"\0")
    return h.hexdigest()


def test_the_shipped_page_is_built_from_its_sources():
    studio = ROOT / "tools" / "studio"
    recorded = (studio / "static" / "sources.sha256").read_text().strip()
    assert recorded == sources_hash(studio / "web"), \
        "tools/studio/static is older than tools/studio/web: run `make studio-assets` and commit the result"
    lock = json.loads((studio / "web" / "package-lock.json").read_text())
    for name in ("codemirror", "@codemirror/lang-yaml", "@codemirror/lsp-client"):
        assert f"node_modules/{name}" in lock["packages"], name  # pinned by the lock file


def test_the_play_tab_gets_what_players_call_each_option(client):
    """The Play tab listed a ruleset's options by their names (seize_tie); it shows the title the ruleset gives
    ('Seize tie'), the name --set takes in its tooltip."""
    authed(client)
    got = client.get("/api/play/setup", params={"path": "bundled:dml"}).json()
    options = {o["name"]: o for o in got["options"]}
    assert options["seize_tie"]["title"] == "Seize tie" and options["seize_tie"]["choices"] == ["first_in_order", "nobody"]
    assert all("title" in p for p in got["parameters"])


def test_the_chart_s_list_marks_a_sequence_a_variant_changes_as_written_here():
    """dml-classic's `overrides:` insert steps into its parent's turn: the chart's list of sequences called the turn
    'written in the parent' (no line here), so a designer looking for what their variant changed passed it by."""
    from rulecraft.loader import load_ruleset
    from rulecraft.tools.studio.views import chart

    path = resolve("dml-classic")
    listed = {s["id"]: s["line"] for s in chart(load_ruleset(path), path, 1)["sequences"]}
    text = Path(path).read_text(encoding="utf-8").splitlines()
    assert listed["turn"] is not None and "first_power_phase" in text[listed["turn"] - 1]  # the step it inserts
    assert listed["game"] is None  # written in the parent, untouched here


def test_the_printed_address_answers_at_once():
    """The address is printed (and `--open` opens the browser) before the server has imported uvicorn and the app:
    the socket listens when it is bound, so a browser that comes first waits in the queue instead of being refused
    (session 16: with `--open` on a slow machine the page said 'This site can't be reached')."""
    import socket

    from rulecraft.tools.studio import _bind

    sock = _bind("127.0.0.1", 0)
    try:
        socket.create_connection(sock.getsockname(), timeout=5).close()
    finally:
        sock.close()


def test_a_variant_is_titled_after_its_parent(client, folder):
    """A variant made with New is titled after its parent, which players read at the top of their screen and on the
    printed pages: 'dml house' was titled 'Dml House' (its file name, capitalised), not after the game."""
    from rulecraft.loader import load_ruleset

    authed(client)
    assert client.post("/api/new", json={"path": "dml house", "extends": "bundled:dml"}).status_code == 400
    assert client.post("/api/new", json={"path": "dml-house", "extends": "bundled:dml"}).json() == {"path": "dml-house.yaml"}
    assert load_ruleset(str(folder / "dml-house.yaml")).ruleset.title == "Dragon's Money Laundering (dml-house)"
    assert client.post("/api/new", json={"path": "fast", "extends": "pig.yaml"}).json() == {"path": "fast.yaml"}
    assert load_ruleset(str(folder / "fast.yaml")).ruleset.title == "Pig (fast)"


def test_a_folder_not_there_yet_is_said_with_the_way_on(tmp_path, capsys):
    """`rulecraft studio my-games/ --open`, as the README has it, in a place with no my-games yet: the studio said
    'is neither a folder nor a file'; it says the folder is not there and how to make it (a ruleset file not there:
    how to start one), exit 2, and makes nothing (a typo would leave a folder behind)."""
    import argparse

    from rulecraft.tools.studio import run

    assert run(argparse.Namespace(path=str(tmp_path / "my-games") + "/")) == 2
    said = capsys.readouterr().err
    assert "no such folder" in said and f"mkdir -p {tmp_path / 'my-games'}" in said
    assert run(argparse.Namespace(path=str(tmp_path / "mine.yaml"))) == 2
    assert "New" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_variant_that_changes_many_sequences_draws_one_at_a_time_and_lists_them_all(client, folder):
    """Session 19: a variant changing 400 sequences had them all drawn in one Graphviz chart (15 s before the words
    showed, a 2.9 MB SVG fitted to a strip no one could read). Past a few, the chart draws one sequence that differs
    (the one asked for, else the first) and the answer lists every one, for the page to pick from."""
    authed(client)
    many_sequences(folder, 12, 30)
    d = client.get("/api/diff", params={"a": "big.yaml", "b": "big-v.yaml"}).json()
    assert [s["id"] for s in d["sequences"]] == [f"s{i}" for i in range(12)]
    assert d["sequences"][3] == {"id": "s3", "title": "Sequence 3", "status": "changed"}
    assert d["drawn"] == ["s0"] and d["svg"].count("s0: Sequence 0") == 1 and "Sequence 1 " not in d["svg"]
    assert d["text"].count("changed parameter p") == 30
    d = client.get("/api/diff", params={"a": "big.yaml", "b": "big-v.yaml", "sequence": "s7"}).json()
    assert d["drawn"] == ["s7"] and "s7: Sequence 7" in d["svg"] and "s0: Sequence 0" not in d["svg"]
    d = client.get("/api/diff", params={"a": "big.yaml", "b": "big-v.yaml", "sequence": "nope"}).json()
    assert d["drawn"] == ["s0"]  # not a sequence that differs: the first
    # (another pick reuses the comparison made; a file saved since is read again, its parent too)
    (folder / "big.yaml").write_text((folder / "big.yaml").read_text().replace("p0: {default: 0,", "p0: {default: 5,"))
    assert "p0: default: 5 -> 1" in client.get("/api/diff", params={"a": "big.yaml", "b": "big-v.yaml"}).json()["text"]
    (folder / "few.yaml").write_text((folder / "pig.yaml").read_text().replace("set turn_total = 0", "set turn_total = 1"))
    d = client.get("/api/diff", params={"a": "pig.yaml", "b": "few.yaml"}).json()  # a few: every one, as before
    assert d["drawn"] == [s["id"] for s in d["sequences"]] == ["turn"]
