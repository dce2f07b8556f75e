"""The studio's page does not lose a person's text (session 13), in a real browser (Playwright with Debian's
Chromium; skipped, saying why, without them): closing or reloading a page whose text is not saved asks first."""

from __future__ import annotations

import shutil
from contextlib import contextmanager

from rulecraft.bundled import resolve

from studio_harness import chromium, studio_server

WAIT = 60_000  # ms: an upper bound on a busy machine, never a measure


@contextmanager
def _editing_pig(tmp_path, line: str):
    """A studio serving a copy of pig, its page open on it in Chromium with `line` typed at the end, not saved."""
    shutil.copy(resolve("pig"), tmp_path / "pig.yaml")
    with studio_server([str(tmp_path)]) as got, chromium() as browser:
        page = browser.new_page()
        page.goto(got[0].replace("/?", "/?path=pig.yaml&"))
        page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
        page.click(".cm-content")
        page.keyboard.press("Control+End")
        page.keyboard.type(line)
        yield page


def test_closing_a_page_with_unsaved_text_asks_first(tmp_path):
    """A reload (F5) or a closed tab threw away text not saved without a word: the text lives only in the page."""
    with _editing_pig(tmp_path, "# a line not saved yet\n") as page:
        with page.expect_event("dialog", timeout=WAIT) as asked:  # a reload, as F5 asks for one
            page.evaluate("() => { setTimeout(() => location.reload(), 0) }")
        assert asked.value.type == "beforeunload"
        asked.value.dismiss()  # 'stay on the page': the text is still there
        text = page.evaluate("() => window.studio.view.state.doc.toString()")
        assert "# a line not saved yet" in text
        assert "# a line not saved yet" not in (tmp_path / "pig.yaml").read_text(encoding="utf-8")
        page.keyboard.press("Control+s")
        page.wait_for_function("() => document.querySelector('#status').textContent.startsWith('saved')",
                               timeout=WAIT)
        later: list[str] = []
        page.on("dialog", lambda d: (later.append(d.type), d.dismiss()))
        page.evaluate("() => { window.studio.reloaded = false; setTimeout(() => location.reload(), 0) }")
        page.wait_for_function("() => window.studio && window.studio.reloaded === undefined"
                               " && document.body.dataset.ready === '1'", timeout=WAIT)
        assert later == []  # saved: nothing to ask


def test_a_file_removed_on_disk_is_saved_anew_at_the_second_save(tmp_path):
    """The page kept the digest of a file removed on disk since it loaded it, so every Ctrl-S was refused: the text
    could not be saved under its name. The first save says the file was removed; the second writes it anew."""
    with _editing_pig(tmp_path, "# written after the file went\n") as page:
        (tmp_path / "pig.yaml").unlink()
        page.keyboard.press("Control+s")
        page.wait_for_function("() => document.querySelector('#status').textContent.includes('was removed on disk')",
                               timeout=WAIT)
        assert not (tmp_path / "pig.yaml").exists()
        page.keyboard.press("Control+s")
        page.wait_for_function("() => document.querySelector('#status').textContent.startsWith('saved')",
                               timeout=WAIT)
        assert (tmp_path / "pig.yaml").read_text(encoding="utf-8").endswith("# written after the file went\n")
