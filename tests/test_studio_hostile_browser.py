"""The studio's page does not lose a person's text (session 13), in a real browser (Playwright with Debian's
Chromium; skipped, saying why, without them): closing or reloading a page whose text is not saved asks first."""

from __future__ import annotations

import shutil
from contextlib import contextmanager

import pytest

from rulecraft.bundled import resolve

from studio_harness import chromium, studio_server

WAIT = 60_000  # ms: an upper bound on a busy machine, never a measure


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(the folder, the studio's URL): one studio and one Chromium for the file's tests, each test on a file of its
    own (a studio and a Chromium started per test were about a third of the file's time)."""
    folder = tmp_path_factory.mktemp("studio")
    with studio_server([str(folder)]) as got, chromium() as browser:
        yield folder, got[0], browser


@contextmanager
def _editing_pig(served, name: str, line: str):
    """The studio's page open in Chromium on a copy of pig named `name`, with `line` typed at the end, not saved."""
    folder, url, browser = served
    shutil.copy(resolve("pig"), folder / name)
    page = browser.new_page()
    try:
        page.goto(url.replace("/?", f"/?path={name}&"))
        page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
        page.click(".cm-content")
        page.keyboard.press("Control+End")
        page.keyboard.type(line)
        yield page
    finally:
        page.close()


def test_closing_a_page_with_unsaved_text_asks_first(served):
    """A reload (F5) or a closed tab threw away text not saved without a word: the text lives only in the page."""
    folder = served[0]
    with _editing_pig(served, "reload.yaml", "# a line not saved yet\n") as page:
        with page.expect_event("dialog", timeout=WAIT) as asked:  # a reload, as F5 asks for one
            page.evaluate("() => { setTimeout(() => location.reload(), 0) }")
        assert asked.value.type == "beforeunload"
        asked.value.dismiss()  # 'stay on the page': the text is still there
        text = page.evaluate("() => window.studio.view.state.doc.toString()")
        assert "# a line not saved yet" in text
        assert "# a line not saved yet" not in (folder / "reload.yaml").read_text(encoding="utf-8")
        page.keyboard.press("Control+s")
        page.wait_for_function("() => document.querySelector('#status').textContent.startsWith('saved')",
                               timeout=WAIT)
        later: list[str] = []
        page.on("dialog", lambda d: (later.append(d.type), d.dismiss()))
        page.evaluate("() => { window.studio.reloaded = false; setTimeout(() => location.reload(), 0) }")
        page.wait_for_function("() => window.studio && window.studio.reloaded === undefined"
                               " && document.body.dataset.ready === '1'", timeout=WAIT)
        assert later == []  # saved: nothing to ask


def test_a_file_removed_on_disk_is_saved_anew_at_the_second_save(served):
    """The page kept the digest of a file removed on disk since it loaded it, so every Ctrl-S was refused: the text
    could not be saved under its name. The first save says the file was removed; the second writes it anew."""
    folder = served[0]
    with _editing_pig(served, "removed.yaml", "# written after the file went\n") as page:
        (folder / "removed.yaml").unlink()
        page.keyboard.press("Control+s")
        page.wait_for_function("() => document.querySelector('#status').textContent.includes('was removed on disk')",
                               timeout=WAIT)
        assert not (folder / "removed.yaml").exists()
        page.keyboard.press("Control+s")
        page.wait_for_function("() => document.querySelector('#status').textContent.startsWith('saved')",
                               timeout=WAIT)
        assert (folder / "removed.yaml").read_text(encoding="utf-8").endswith("# written after the file went\n")
