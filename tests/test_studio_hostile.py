"""The studio attacked as a stranger would (session 13): a folder that came with tampered games, saves that would
lose or half-write a person's work, and requests that reached Python's own words. Each test failed before its fix."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from starlette.testclient import TestClient

from rulecraft.bundled import resolve
from rulecraft.tools.studio.app import make_app
from rulecraft.tools.studio.guard import Guard
from rulecraft.tools.studio.play import routes

BASE = "http://127.0.0.1:5151"
TOKEN = "t0ken-for-the-hostile-tests"
AUTH = {"authorization": f"token {TOKEN}"}


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    shutil.copy(resolve("sealed-auction"), tmp_path / "auction.yaml")
    shutil.copy(resolve("pig"), tmp_path / "pig.yaml")
    monkeypatch.setattr(routes, "RATE", 10_000.0)
    monkeypatch.setattr(routes, "BURST", 10_000)
    return tmp_path


def studio(folder) -> TestClient:
    return TestClient(make_app(str(folder), Guard(TOKEN, bound="127.0.0.1"), pace=0), base_url=BASE,
                      raise_server_exceptions=False)


# ---------------------------------------------------------------------------------------------- a tampered games folder

def test_a_game_whose_files_are_links_fifos_or_devices_is_skipped_and_nothing_is_written_through(folder, tmp_path_factory):
    """`.rulecraft/games/ID/` came with the folder: its game.log was opened for writing whatever it was, so a FIFO
    there hung the studio at its start for ever (here a reader is kept open so the old code did not hang but wrote
    into it), a link to a device had the log written into the device, and a save linked from outside was read."""
    with studio(folder) as c:
        r = c.post("/api/play/new", json={"ruleset": "auction.yaml", "seats": ["human", "random"], "seed": 3},
                   headers=AUTH)
        assert r.status_code == 200, r.text
        gid = r.json()["id"]
    games = folder / ".rulecraft" / "games"
    good = games / gid
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    victim = elsewhere / "victim.txt"
    victim.write_text("precious\n")
    made = {}
    for name, how in {"log-fifo": "fifo", "log-link-to-fifo": "link-fifo", "log-link-to-device": "device",
                      "save-link-out": "save", "log-folder": "folder"}.items():
        home = games / name
        shutil.copytree(good, home)
        meta = json.loads((home / "game.json").read_text())
        meta["id"] = name
        meta["ruleset"] = str(home / "ruleset.yaml")
        (home / "game.json").write_text(json.dumps(meta))
        log = home / "game.log"
        if how == "fifo":
            log.unlink()
            os.mkfifo(log)
            made[name] = os.open(log, os.O_RDONLY | os.O_NONBLOCK)  # a reader: the old code wrote instead of hanging
        elif how == "link-fifo":
            fifo = elsewhere / f"{name}.fifo"
            os.mkfifo(fifo)
            made[name] = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
            log.unlink()
            os.symlink(fifo, log)
        elif how == "device":
            log.unlink()
            os.symlink("/dev/null", log)
        elif how == "save":
            shutil.copy(home / "game.save", elsewhere / "g.save")
            (home / "game.save").unlink()
            os.symlink(elsewhere / "g.save", home / "game.save")
        else:
            log.unlink()
            log.mkdir()
    try:
        with studio(folder) as c:
            listed = c.get("/api/play/games", headers=AUTH).json()
        for name, fd in made.items():
            assert os.read(fd, 1 << 16) == b"", name  # nothing was written into a FIFO
    finally:
        for fd in made.values():
            os.close(fd)
    assert [g["id"] for g in listed["games"]] == [gid]
    problems = "\n".join(listed["problems"])
    for name, said in {"log-fifo": "game.log is a FIFO", "log-link-to-fifo": "game.log is a link",
                       "log-link-to-device": "game.log is a link", "save-link-out": "game.save is a link",
                       "log-folder": "game.log is a folder"}.items():
        assert f"{name}: SaveError: {said}" in problems, (name, problems)
    assert victim.read_text() == "precious\n"
    assert os.path.islink(games / "save-link-out" / "game.save")  # left as it came
