"""The studio in a real browser, as a designer uses it: Playwright (Python) driving Debian's Chromium against
`rulecraft studio` started as a command. A bundled example copied to a folder; a misspelt name typed into it is
underlined and listed at that spot; fixed, the problem goes and the chart shows the changed step; a click on a
chart box puts the cursor on its step; Ctrl-S saves the text to the file. One server and one browser for the
module. Without Chromium (or Playwright) the tests skip and say why.

With RULECRAFT_STUDIO_SCREENSHOTS=FOLDER set, the screenshots in docs/studio.md are written there
(`RULECRAFT_STUDIO_SCREENSHOTS=docs/images .venv/bin/python -m pytest tests/test_studio_browser.py`).
"""

from __future__ import annotations

import shutil

import pytest

from rulecraft.bundled import resolve

from studio_harness import chromium, shot, studio_server

WAIT = 60_000  # ms: an upper bound on a busy machine, never a measure


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    folder = tmp_path_factory.mktemp("studio")
    shutil.copy(resolve("pig"), folder / "pig.yaml")
    with studio_server([str(folder)]) as got:
        yield folder, got[0]


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def select_text(page, line_text: str, word: str) -> int:
    """Select `word` on the first line holding `line_text` (as a person double-clicks it); its 1-based line."""
    return page.evaluate("""([lineText, word]) => {
        const view = window.studio.view, doc = view.state.doc
        for (let n = 1; n <= doc.lines; n++) {
            const line = doc.line(n), at = line.text.indexOf(lineText)
            if (at < 0) continue
            const from = line.from + line.text.indexOf(word, at)
            view.dispatch({selection: {anchor: from, head: from + word.length}, scrollIntoView: true})
            view.focus()
            return n
        }
        return 0
    }""", [line_text, word])


def cursor_line(page) -> int:
    return page.evaluate("() => { const s = window.studio.view.state; return s.doc.lineAt(s.selection.main.head).number }")


def chart_count(page) -> int:
    return int(page.get_attribute("#chart", "data-drawn") or 0)


def test_edit_check_chart_and_save(studio, browser):
    folder, url = studio
    page = browser.new_page(viewport={"width": 1500, "height": 950})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url.replace("/?", "/?path=pig.yaml&"))
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    page.wait_for_selector("#chart[data-drawn] svg", timeout=WAIT)
    assert "token" not in page.url  # kept in the studio's cookie, not in the address bar
    assert page.locator("#problems li").count() == 0

    # a misspelt name typed into a step: underlined where it is, and listed with its code and hint
    line = select_text(page, '"turn_total += r.total"', "turn_total += r.total")
    page.wait_for_function("() => document.querySelector('#chart-note').textContent === 'A turn'", timeout=WAIT)
    page.keyboard.type("turn_totl += r.total * 3")
    page.wait_for_function("() => document.querySelectorAll('#problems li').length === 1", timeout=WAIT)
    problem = page.locator(f"#problems li[data-code='E301'][data-line='{line}']")
    problem.wait_for(timeout=WAIT)
    assert "turn_totl" in problem.inner_text() and "did you mean 'turn_total'" in problem.inner_text()
    page.wait_for_selector(".cm-lintRange-error", timeout=WAIT)
    assert page.locator(".cm-lintRange-error").first.inner_text() == "turn_totl"
    page.wait_for_selector("#chart.stale", timeout=WAIT)  # the last good chart, greyed, with a note
    assert "errors" in page.inner_text("#chart-note")
    page.evaluate("() => { const v = window.studio.view; v.dispatch({selection: v.state.selection, scrollIntoView: true}) }")
    shot(page, "studio-problem.png")

    # clicking the problem puts the cursor on it
    select_text(page, "target_score", "target_score")
    problem.click()
    assert cursor_line(page) == line

    # fixed: the problem goes, and the chart is drawn again with the changed step
    drawn = chart_count(page)
    select_text(page, '"turn_totl += r.total * 3"', "turn_totl")
    page.keyboard.type("turn_total")
    page.wait_for_function("() => document.querySelectorAll('#problems li').length === 0", timeout=WAIT)
    assert page.locator(".cm-lintRange-error").count() == 0
    page.wait_for_function(f"() => Number(document.querySelector('#chart').dataset.drawn) > {drawn}"
                           " && !document.querySelector('#chart').classList.contains('stale')", timeout=WAIT)
    assert "times 3" in page.inner_text("#chart")
    # the cursor's step is the highlighted box
    box = page.evaluate(f"() => window.studio.chart.boxes.find(b => b.line === {line})")
    assert box is not None
    page.wait_for_selector("#chart .current", timeout=WAIT)
    assert page.evaluate("() => document.querySelector('#chart .current').id").removeprefix("a_") == box["id"]
    shot(page, "studio-chart.png")

    # a click on another box puts the cursor on its step
    other = page.evaluate(f"() => window.studio.chart.boxes.find(b => b.line > {line} + 1)")
    page.locator(f"#chart [id='{other['id']}']").first.click()
    assert cursor_line(page) == other["line"]

    # Ctrl-S: the file on disk holds the text
    page.keyboard.press("Control+s")
    page.wait_for_function("() => document.querySelector('#status').textContent.startsWith('saved')", timeout=WAIT)
    text = page.evaluate("() => window.studio.view.state.doc.toString()")
    assert (folder / "pig.yaml").read_text(encoding="utf-8") == text
    assert '"turn_total += r.total * 3"' in text
    assert errors == []
    page.close()


def test_printed_pages_and_a_change_on_disk(studio, browser):
    folder, url = studio
    page = browser.new_page(viewport={"width": 1500, "height": 950})
    page.goto(url.replace("/?", "/?path=pig.yaml&"))
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    page.click("#tabs button[data-tab='aid']")
    page.wait_for_function("() => document.querySelector('#aid-frame').src.startsWith('blob:')", timeout=WAIT)
    frame = page.frame_locator("#aid-frame")
    frame.locator("body").wait_for(timeout=WAIT)
    assert "Pig" in frame.locator("body").inner_text()
    shot(page, "studio-aid.png")
    # changed by another program while the page has nothing unsaved: the page takes the new text in
    path = folder / "pig.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("title: Pig", "title: Pig Dice"), encoding="utf-8")
    page.wait_for_function("() => window.studio.view.state.doc.toString().includes('title: Pig Dice')", timeout=WAIT)
    page.close()
