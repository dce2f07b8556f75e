"""Session 19: what a stranger's folder, a kill and a full disk can do to the files the tools keep
(docs/security.md, section 20). Each test was seen to fail before its fix."""

from __future__ import annotations

import hashlib
import os
import shutil

import pytest
from starlette.testclient import TestClient

from rulecraft.bundled import resolve
from rulecraft.tools.studio.app import make_app
from rulecraft.tools.studio.guard import Guard

TOKEN = "t0ken-for-the-session-19-tests"
AUTH = {"authorization": f"token {TOKEN}"}


def _studio(folder) -> TestClient:
    return TestClient(make_app(str(folder), Guard(TOKEN, bound="127.0.0.1"), pace=0), base_url="http://127.0.0.1:5151",
                      raise_server_exceptions=False)


def _draft_name(rel: str) -> str:  # as a stranger works it out: the first 32 hex digits of the path's SHA-256
    return hashlib.sha256(rel.encode("utf-8")).hexdigest()[:32] + ".json"


@pytest.fixture()
def folder(tmp_path):
    home = tmp_path / "folder"
    home.mkdir()
    shutil.copy(resolve("pig"), home / "pig.yaml")
    return home


def _save_an_edit(c: TestClient) -> tuple[int, dict, str]:
    got = c.get("/api/file?path=pig.yaml", headers=AUTH).json()
    text = got["text"].replace("Pig", "Pig!", 1)
    r = c.post("/api/save", headers=AUTH, json={"path": "pig.yaml", "text": text, "digest": got["digest"]})
    return r.status_code, r.json(), text


def test_a_save_never_removes_a_file_through_a_drafts_link_of_the_folder(folder, tmp_path):
    """`.rulecraft/drafts` a link to another folder (a zip carries links): a save dropped the draft of the file
    saved by its name there, so it removed a file of that other folder."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / _draft_name("pig.yaml")).write_text("someone's file", encoding="utf-8")
    (folder / ".rulecraft").mkdir()
    os.symlink(elsewhere, folder / ".rulecraft" / "drafts")
    with _studio(folder) as c:
        status, body, text = _save_an_edit(c)
    assert status == 200 and body["path"] == "pig.yaml"
    assert (folder / "pig.yaml").read_text(encoding="utf-8") == text
    assert (elsewhere / _draft_name("pig.yaml")).read_text(encoding="utf-8") == "someone's file"


def test_a_save_that_wrote_the_file_says_so_whatever_the_drafts_folder_holds(folder):
    """A folder where the draft of the file would be: the save wrote the file, then failed to drop the draft and
    answered 500 'nothing was written': the page said the text was not saved, and its next save was refused as
    'changed on disk'."""
    (folder / ".rulecraft" / "drafts" / _draft_name("pig.yaml")).mkdir(parents=True)
    with _studio(folder) as c:
        status, body, text = _save_an_edit(c)
        assert status == 200, body
        assert (folder / "pig.yaml").read_text(encoding="utf-8") == text
        got = c.get("/api/file?path=pig.yaml", headers=AUTH)
        assert got.status_code == 200 and got.json()["draft"] is None


def test_printing_leaves_nothing_in_the_temporary_folder(monkeypatch):
    """Every page printed (`aid`, `book -o x.pdf`, the studio's printed pages) left a folder
    `org.chromium.Chromium.XXXXXX` of Chromium's own in the temporary folder, killed before it could remove it:
    a studio printing at each save filled the temporary folder with one more each time (465 found on this machine)."""
    from rulecraft.tools.print.htmlpdf import find_chromium, html_to_pdf

    if find_chromium() is None:
        pytest.skip("needs Chromium")
    import tempfile

    # a short name: Chromium's socket in it must fit a socket's path (108 bytes), which pytest's tmp_path may not
    tmp = tempfile.mkdtemp(prefix="s19-", dir="/tmp" if os.path.isdir("/tmp") else None)
    try:
        monkeypatch.setenv("TMPDIR", tmp)
        monkeypatch.setattr("tempfile.tempdir", tmp)
        assert html_to_pdf("<p>a page</p>").startswith(b"%PDF")
        assert sorted(os.listdir(tmp)) == []
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_a_log_written_again_by_an_undo_is_whole_or_as_it_was(tmp_path, monkeypatch):
    """`undo` writes the game's log again with the decisions that remain. It emptied the file, then wrote its
    records one at a time: a full disk (or a kill) in between left the header and part of the records, the
    decisions kept by the undo lost (with `--log` alone, the only record of the game). Now the file is replaced
    whole, then added to."""
    import errno

    from rulecraft import files
    from rulecraft.runtime.gamelog import GameLogWriter

    path = str(tmp_path / "g.log")
    header = {"type": "header", "ruleset": "pig", "seed": 1}
    records = [{"type": "decision", "n": i, "player": i % 2, "choice": "yes"} for i in range(1, 41)]
    GameLogWriter.rewrite(path, header, records).close()
    before = open(path, "rb").read()
    assert before.count(b"\n") == 41

    real, room = files._write_all, [len(before) // 2]  # the disk has room for half of the log

    def disk_fills_up(fd, data):
        fits = bytes(data[:room[0]])
        real(fd, fits)
        room[0] -= len(fits)
        if len(fits) < len(data):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files, "_write_all", disk_fills_up)
    with pytest.raises(files.OutputError) as caught:
        GameLogWriter.rewrite(path, header, records[:-1]).close()
    assert caught.value.message == f"cannot write {path}: the disk is full"
    assert open(path, "rb").read() == before
    assert [n for n in os.listdir(tmp_path) if n.endswith(".tmp")] == []  # no temporary file left
    monkeypatch.setattr(files, "_write_all", real)
    w = GameLogWriter.rewrite(path, header, records[:-1])  # and with room, the log is the one the undo leaves, and goes on
    w._write(records[-1])
    w.close()
    assert open(path, "rb").read() == before


# a writer that stops in the middle of writing its output: it writes half, says so on a pipe and waits there, so the
# kill lands at that point whatever the machine's load (never on a printed line, which may come mid-import)
_STOPS_MID_WRITE = r'''
import os, sys, time
import rulecraft.files as files
real, fd = files._write_all, int(sys.argv[1])
def half_then_wait(out, data):
    real(out, bytes(data[:len(data) // 2]))
    os.write(fd, b"!")
    while True:
        time.sleep(60)
files._write_all = half_then_wait
from rulecraft.tools.cli.main import main
sys.argv = ["rulecraft", *sys.argv[2:]]
sys.exit(main())
'''


def _killed_mid_write(args: list[str], cwd) -> None:
    import select
    import signal
    import subprocess
    import sys

    r, w = os.pipe()
    proc = subprocess.Popen([sys.executable, "-c", _STOPS_MID_WRITE, str(w), *args], cwd=cwd, pass_fds=(w,),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(w)
    try:
        assert select.select([r], [], [], 300)[0] and os.read(r, 1) == b"!", "the writer never reached its write"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        os.close(r)


def _run(args: list[str], cwd) -> None:
    import subprocess
    import sys

    main = "import sys; from rulecraft.tools.cli.main import main; sys.argv[0] = 'rulecraft'; sys.exit(main())"
    done = subprocess.run([sys.executable, "-c", main, *args], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_writer_killed_mid_write_leaves_the_old_file_and_the_next_write_sweeps_its_leftover(tmp_path):
    """`kill -9` while a file is replaced: the old file stays whole, but the temporary file was left beside it for
    ever (one for every kill: a save, a chart, each figure of a report). The next write of that file removes the
    leftovers of writers that are gone (once they are a minute old: here its clock is set back)."""
    (tmp_path / "out.json").write_text("the old file\n", encoding="utf-8")
    _killed_mid_write(["schema", "-o", "out.json"], tmp_path)
    assert (tmp_path / "out.json").read_text(encoding="utf-8") == "the old file\n"
    left = [p for p in tmp_path.iterdir() if p.name != "out.json"]
    assert len(left) == 1 and left[0].name.startswith(".out.json.") and left[0].name.endswith(".tmp")
    os.utime(left[0], (left[0].stat().st_atime - 120, left[0].stat().st_mtime - 120))
    _run(["schema", "-o", "out.json"], tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]
    assert (tmp_path / "out.json").read_text(encoding="utf-8").startswith("{")


def test_a_temporary_file_of_a_live_or_recent_writer_is_never_swept(tmp_path):
    import subprocess
    import sys

    from rulecraft import tempfiles

    live = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True).stdout.strip()
        old = tmp_path / f".x.json.{live.pid}.abcd1234.tmp"  # a writer still at work (stopped, slow)
        young = tmp_path / f".x.json.{gone}.abcd1234.tmp"  # a process gone, but touched a moment ago
        stale = tmp_path / f".x.json.{gone}.efgh5678.tmp"
        other = tmp_path / f".y.json.{gone}.efgh5678.tmp"  # another file's
        for p in (old, young, stale, other):
            p.write_text("part", encoding="utf-8")
        for p in (old, stale, other):
            os.utime(p, (p.stat().st_atime - 120, p.stat().st_mtime - 120))
        assert tempfiles.sweep(str(tmp_path / "x.json")) == 1
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in (old, young, other))
        assert tempfiles.sweep(str(tmp_path / "x.json")) == 0  # once a process for each output
    finally:
        live.communicate(b"")


@pytest.mark.parametrize("draft, comes_back", [
    ('{"path": "pig.yaml", "base": null, "text": "ruleset: pig\\n\\ud800", "time": 5}', "ruleset: pig\n\ud800"),
    ('{"path": "pig.yaml", "base": "\\udc00", "text": "ruleset: pig\\n", "time": 5}', None),
    ('{"path": "pig.yaml", "base": null, "text": "ruleset: pig\\n", "time": 1e999}', None),
    ('{"path": "pig.yaml", "base": null, "text": "ruleset: pig\\n", "time": NaN}', None),
    ('{"path": "pig.yaml", "base": null, "text": "ruleset: pig\\n", "time": -Infinity}', None),
])
def test_a_draft_from_elsewhere_never_keeps_its_file_from_opening(folder, draft, comes_back):
    """A `.rulecraft/drafts/` file that came with the folder (or the page's own text with a lone surrogate, which
    JSON carries and the draft route kept): every open of the ruleset in the studio was a 500 'an error of
    rulecraft's own' (UTF-8 could not encode the surrogate; JSON has no NaN or infinity), so the file could not be
    opened, nor its draft discarded. A text with a lone surrogate comes back as it was typed (the save then names
    the character, as for any text of the editor); a draft of another shape is passed over."""
    home = folder / ".rulecraft" / "drafts"
    home.mkdir(parents=True)
    (home / _draft_name("pig.yaml")).write_text(draft, encoding="utf-8")
    with _studio(folder) as c:
        got = c.get("/api/file?path=pig.yaml", headers=AUTH)
        assert got.status_code == 200, got.text
        assert got.json()["text"] == (folder / "pig.yaml").read_text(encoding="utf-8")
        assert (got.json()["draft"] or {}).get("text") == comes_back


def test_the_page_s_own_text_with_a_lone_surrogate_is_kept_and_comes_back(folder):
    with _studio(folder) as c:
        got = c.get("/api/file?path=pig.yaml", headers=AUTH).json()
        body = '{"path": "pig.yaml", "text": "ruleset: pig\\n# \\ud800", "digest": "%s"}' % got["digest"]
        r = c.post("/api/draft", headers={**AUTH, "content-type": "application/json"}, content=body)
        assert r.status_code == 200 and r.json()["kept"] is True
        again = c.get("/api/file?path=pig.yaml", headers=AUTH)
        assert again.status_code == 200 and again.json()["draft"]["text"] == "ruleset: pig\n# \ud800"


def test_the_parents_of_a_ruleset_are_bounded_together_as_one_file(tmp_path):
    """Each file under `extends:` was held to the 2,000,000 bytes of one file, so a chain of 16 read 16 times that:
    10 MB of variants (16 of 640 KB, each adding a sequence of 40,000 steps) took 37 s of processor and 2.3 GB to
    validate (a single file: 2.5 s, 184 MB). The parents together are now held to the limit of one file."""
    from rulecraft.loader import load_ruleset

    filler = "# " + "x" * 98 + "\n"
    (tmp_path / "p1.yaml").write_text("ruleset: p1\nextends: pig\n" + filler * 11_000, encoding="utf-8")  # 1.1 MB
    (tmp_path / "p2.yaml").write_text("ruleset: p2\nextends: p1.yaml\n" + filler * 11_000, encoding="utf-8")
    (tmp_path / "v.yaml").write_text("ruleset: v\nextends: p2.yaml\n", encoding="utf-8")
    got = load_ruleset(str(tmp_path / "v.yaml"))
    said = [(d.code, os.path.basename(d.span.file), d.span.line) for d in got.diagnostics if d.is_error]
    assert said == [("E002", "p2.yaml", 2)], got.diagnostics
    assert got.diagnostics[0].message.startswith("'extends: p1.yaml' brings the parents of this ruleset to 2,222,0")
    assert not any(d.is_error for d in load_ruleset(str(tmp_path / "p1.yaml")).diagnostics)  # a parent of 1.1 MB: fine
    assert not any(d.is_error for d in load_ruleset("dml-classic").diagnostics)


def test_files_of_a_drafts_folder_from_elsewhere_do_not_count_as_drafts(folder):
    """200 files of any name in `.rulecraft/drafts/` (a folder from elsewhere, or temporary files a killed studio
    left) made every draft refused with '200 files already have text not saved kept: save or discard some first',
    which no save or discard of the page could mend. Only drafts count: files named as the studio names them."""
    home = folder / ".rulecraft" / "drafts"
    home.mkdir(parents=True)
    for i in range(250):
        (home / f"junk-{i}.json").write_text("{}", encoding="utf-8")
    with _studio(folder) as c:
        r = c.post("/api/draft", headers=AUTH, json={"path": "pig.yaml", "text": "ruleset: pig\n", "digest": None})
        assert r.status_code == 200 and r.json()["kept"] is True


# --------------------------------------------------------------------------------- hostile rulesets: chance's record

PICKS = """ruleset: picks
title: Picks
players: {min: 2, max: 2, default: 2}
variables: {n: 0, big: []}
start: game
sequences:
  game:
    kind: game
    steps:
      - "set big = 1..SIZE"
      - repeat:
          - "set n = n + count(shuffled(big))"
        until: "n >= UNTIL"
"""


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_each_pick_of_chance_costs_the_budget_as_its_record_does(tmp_path, engine):
    """`shuffled(X)` makes a pick of chance for each item, and the log keeps each pick (`["pick", n, i]`) until the
    next decision; it was charged as a copy of the list (1 step for 16 items). A loop shuffling a list of 100,000
    held 10 GB after 300 s and had not ended (the budget allowed 800 such shuffles: 80 million picks kept, a log
    line of 1.6 GB that no replay could read). A pick now costs 16 steps (`tabletop.PICK_STEPS`, about what its
    record holds next to a value of a list), `random(X)` too. Counted: the work charged, and the picks kept when the
    budget stops the loop."""
    from rulecraft.diagnostics import RuleError
    from rulecraft.dsl.tabletop import PICK_STEPS
    from rulecraft.loader import load_ruleset
    from rulecraft.runtime.game import Game

    (tmp_path / "once.yaml").write_text(PICKS.replace("SIZE", "10000").replace("UNTIL", "1"), encoding="utf-8")
    once = Game(load_ruleset(str(tmp_path / "once.yaml")).ruleset, 2, 1, engine=engine)
    assert once.over and once.work >= 10_000 * PICK_STEPS >= 160_000
    (tmp_path / "loop.yaml").write_text(PICKS.replace("SIZE", "1000").replace("UNTIL", "1000000000"), encoding="utf-8")
    game = Game(load_ruleset(str(tmp_path / "loop.yaml")).ruleset, 2, 1, max_steps=100_000, start=False, engine=engine)
    with pytest.raises(RuleError) as stopped:
        game._begin()
    assert stopped.value.code == "R002"
    assert len(game.chance) <= 100_000 // PICK_STEPS


ROLLS = """ruleset: rolls
title: Rolls
players: {min: 2, max: 2, default: 2}
variables: {n: 0}
start: game
sequences:
  game:
    kind: game
    steps:
      - repeat:
          - "roll 100d1000 as r"
          - "set n = n + r.total"
        until: "n < 0"
"""


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_a_roll_of_many_dice_costs_the_budget_as_its_record_does(tmp_path, engine):
    """A roll keeps its faces in the log's record until the next decision: a loop rolling 100d1000 held 3.5 GB after
    300 s and had not ended (a roll cost a step or two of the 5,000,000). A roll of several dice now costs PICK_STEPS
    a die (one die is a step's size, and the simulations' fast path for it is left as it was)."""
    from rulecraft.diagnostics import RuleError
    from rulecraft.dsl.tabletop import PICK_STEPS
    from rulecraft.loader import load_ruleset
    from rulecraft.runtime.game import Game

    (tmp_path / "rolls.yaml").write_text(ROLLS, encoding="utf-8")
    game = Game(load_ruleset(str(tmp_path / "rolls.yaml")).ruleset, 2, 1, max_steps=100_000, start=False,
                engine=engine, story=False)
    with pytest.raises(RuleError) as stopped:
        game._begin()
    assert stopped.value.code == "R002"
    assert sum(len(c[2]) for c in game.chance) <= 100_000 // PICK_STEPS
