"""The editor's text not saved, kept by the studio (session 18: a page reloaded, or a studio started again, lost it):
POST /api/draft keeps it under `.rulecraft/drafts/`, GET /api/file gives it back with the file, a save drops it;
a path out of the folder, a `.rulecraft` that is a link and a text over the limit are refused, and nothing is
written through a link. The browser's side is tests/test_studio_drafts_browser.py."""

from __future__ import annotations

import os
import shutil

import pytest
from starlette.testclient import TestClient

from rulecraft.bundled import resolve
from rulecraft.tools.studio.app import make_app
from rulecraft.tools.studio.folder import MAX_FILE
from rulecraft.tools.studio.guard import Guard

BASE = "http://127.0.0.1:5151"
TOKEN = "t0ken-for-the-draft-tests"
AUTH = {"authorization": f"token {TOKEN}"}


@pytest.fixture()
def folder(tmp_path):
    shutil.copy(resolve("pig"), tmp_path / "pig.yaml")
    return tmp_path


def studio(folder) -> TestClient:
    return TestClient(make_app(str(folder), Guard(TOKEN, bound="127.0.0.1"), pace=0), base_url=BASE,
                      raise_server_exceptions=False)


def test_a_draft_outlives_the_studio_and_a_save_drops_it(folder):
    disk = (folder / "pig.yaml").read_text(encoding="utf-8")
    typed = disk.replace("target_score", "target_scor", 1)
    with studio(folder) as c:
        got = c.get("/api/file?path=pig.yaml", headers=AUTH).json()
        assert got["draft"] is None
        r = c.post("/api/draft", headers=AUTH, json={"path": "pig.yaml", "text": typed, "digest": got["digest"]})
        assert r.status_code == 200 and r.json() == {"path": "pig.yaml", "kept": True}
    assert (folder / "pig.yaml").read_text(encoding="utf-8") == disk  # the file is as it was
    kept = list((folder / ".rulecraft" / "drafts").iterdir())
    assert len(kept) == 1 and kept[0].stat().st_mode & 0o077 == 0  # its owner's alone
    with studio(folder) as c:  # a studio started again (another token, another port)
        got = c.get("/api/file?path=pig.yaml", headers=AUTH).json()
        assert got["text"] == disk and got["draft"]["text"] == typed and got["draft"]["base"] == got["digest"]
        assert c.post("/api/save", headers=AUTH, json={"path": "pig.yaml", "text": typed,
                                                       "digest": got["digest"]}).status_code == 200
        assert c.get("/api/file?path=pig.yaml", headers=AUTH).json()["draft"] is None
        # typed back to the file's text: the page sends null, and the draft goes
        c.post("/api/draft", headers=AUTH, json={"path": "pig.yaml", "text": disk, "digest": None})
        assert c.post("/api/draft", headers=AUTH, json={"path": "pig.yaml", "text": None}).json()["kept"] is False
        assert c.get("/api/file?path=pig.yaml", headers=AUTH).json()["draft"] is None
    assert list((folder / ".rulecraft" / "drafts").iterdir()) == []


@pytest.mark.parametrize("body, status, says", [
    ({"path": "../pig.yaml", "text": "x"}, 403, "leaves the folder"),
    ({"path": "/etc/passwd.yaml", "text": "x"}, 403, "absolute path"),
    ({"path": "notes.txt", "text": "x"}, 400, "not a ruleset file"),
    ({"path": "pig.yaml", "text": 3}, 400, "'text' is the editor's text"),
    ({"path": "pig.yaml", "text": "x" * (MAX_FILE + 1)}, 413, "over the limit"),
])
def test_a_draft_out_of_bounds_is_refused_with_a_sentence(folder, body, status, says):
    with studio(folder) as c:
        r = c.post("/api/draft", headers=AUTH, json=body)
    assert r.status_code == status and says in r.json()["error"]
    assert not (folder / ".rulecraft").exists()


def test_no_draft_is_written_or_read_through_a_link(folder, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    os.symlink(elsewhere, folder / ".rulecraft")
    with studio(folder) as c:
        r = c.post("/api/draft", headers=AUTH, json={"path": "pig.yaml", "text": "ruleset: x\n", "digest": None})
        assert r.status_code == 403
        assert r.json()["error"] == ("your text not saved could not be kept by the studio (.rulecraft is a link: the "
                                     "text not saved is kept only in a folder of the studio's folder); save it")
        assert c.get("/api/file?path=pig.yaml", headers=AUTH).json()["draft"] is None
    assert list(elsewhere.iterdir()) == []


def test_the_draft_route_needs_the_token(folder):
    with studio(folder) as c:
        r = c.post("/api/draft", json={"path": "pig.yaml", "text": "ruleset: x\n"})
    assert r.status_code == 403 and not (folder / ".rulecraft").exists()
