"""Text not saved survives a reload and a studio started again, in a real browser (session 18: a designer who
answered the browser's "leave the page?" with yes, or whose studio was stopped, lost every change since the last
save; a studio started again has another port, so the page's own storage would not have it either).

The page sends its text to the studio a moment after the typing settles; opened again, the file comes back with it,
marked not saved, with a note saying so and *Discard it*. A save drops it. The server's side is
tests/test_studio_drafts.py."""

from __future__ import annotations

import shutil

import pytest

from rulecraft.bundled import resolve

from studio_harness import chromium, shot, studio_server

WAIT = 60_000  # ms: an upper bound on a busy machine, never a measure


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def doc(page) -> str:
    return page.evaluate("() => window.studio.view.state.doc.toString()")


def opened(page, url: str) -> None:
    page.goto(url.replace("/?", "/?path=pig.yaml&"))
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)


def kept_by_the_studio(page) -> None:
    """Waits until the studio holds the editor's text (or holds none, once it is the file's again)."""
    page.wait_for_function("() => { const s = window.studio, t = s.view.state.doc.toString()"
                           "; return s.drafts.kept === (t === s.file.saved ? null : t) }", timeout=WAIT)


def test_text_not_saved_comes_back_after_a_reload_and_a_restart(browser, tmp_path):
    shutil.copy(resolve("pig"), tmp_path / "pig.yaml")
    disk = (tmp_path / "pig.yaml").read_text(encoding="utf-8")
    page = browser.new_page(viewport={"width": 1024, "height": 768})
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.type), d.accept()))  # "leave the page?", if the browser asks
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    with studio_server([str(tmp_path)]) as got:
        opened(page, got[0])
        page.evaluate("() => { const v = window.studio.view; v.dispatch({selection: {anchor: 0}}); v.focus() }")
        page.keyboard.type("# my house rules\n")
        typed = doc(page)
        assert typed == "# my house rules\n" + disk
        kept_by_the_studio(page)
        page.reload()
        page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
        assert doc(page) == typed
        assert "dirty" in page.get_attribute("#file-name", "class")
        assert "was kept and is back in the editor: Save writes it to the file." in page.text_content("#status")
        page.wait_for_selector("#chart[data-drawn] svg", state="attached", timeout=WAIT)  # (the picture shows it)
        shot(page, "studio-draft-restored.png")
        # another file opened: nothing asked (the studio holds the text), said, and back when pig.yaml is opened again
        (tmp_path / "pig-b.yaml").write_text("ruleset: pig-b\nextends: pig\ntitle: Pig B\n", encoding="utf-8")
        page.wait_for_selector("#files a:text-is('pig-b.yaml')", timeout=WAIT)
        page.click("#files a:text-is('pig-b.yaml')")
        page.wait_for_function("() => window.studio.file.path === 'pig-b.yaml'", timeout=WAIT)
        assert page.text_content("#status") == ("your text of pig.yaml not saved is kept: open pig.yaml again to go "
                                                "on with it")
        page.click("#files a:text-is('pig.yaml')")
        page.wait_for_function("() => window.studio.file.path === 'pig.yaml'", timeout=WAIT)
        assert doc(page) == typed
    assert (tmp_path / "pig.yaml").read_text(encoding="utf-8") == disk  # nothing was saved

    with studio_server([str(tmp_path)]) as got:  # started again: another port, another token
        opened(page, got[0])
        assert doc(page) == typed
        page.click("#discard-draft")
        assert doc(page) == disk
        assert "dirty" not in (page.get_attribute("#file-name", "class") or "")
        kept_by_the_studio(page)
        page.reload()
        page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
        assert doc(page) == disk and page.query_selector("#discard-draft") is None

        # typed, then saved: nothing kept to come back
        page.evaluate("() => { const v = window.studio.view; v.dispatch({selection: {anchor: 0}}); v.focus() }")
        page.keyboard.type("# saved\n")
        kept_by_the_studio(page)
        page.keyboard.press("Control+s")
        page.wait_for_function("() => window.studio.file.saved === window.studio.view.state.doc.toString()",
                               timeout=WAIT)
        page.reload()
        page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
        assert doc(page) == "# saved\n" + disk and page.query_selector("#discard-draft") is None
    assert errors == [] and "confirm" not in dialogs
