"""A designer who never saw the studio (session 20), in a real browser against `rulecraft studio` started in a folder
of their own: each place where the walk lost work or showed a stale thing, kept fixed.

- Text typed after a reload was never kept: the studio read the kept draft back as an input of its process, and the
  one writer then refused every later keep of it ("an input of this command"), so the next reload (or a crash) gave
  back the older text, and the header showed the writer's words.
- The Play tab kept the form of the ruleset as it was when the tab was opened: a variant saved with its target at 30
  still offered the parent's 100 (and started the game at 100); the form kept for a reload held every default, so
  the old default came back over the new one.
- Undo was offered at every answer of pig, and every press said "dice were rolled since".
- At 1,024 px a new variant's guiding comments were cut at the editor's edge (now long lines wrap).
- `options:` then its entry not indented: the problem said "unknown key" and listed every top-level key.

One server and one browser for the module; without Chromium (or Playwright) the tests skip.
"""

from __future__ import annotations

import shutil

import pytest

from rulecraft.bundled import resolve

from studio_harness import chromium, studio_server

WAIT = 60_000  # ms: an upper bound on a busy machine, never a measure
VARIANT = """ruleset: pig-house
extends: pig
title: "Pig (house)"
version: "1"
"""


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    folder = tmp_path_factory.mktemp("s20")
    shutil.copy(resolve("pig"), folder / "pig.yaml")
    (folder / "house.yaml").write_text(VARIANT, encoding="utf-8")
    with studio_server([str(folder)]) as got:
        yield folder, got[0]


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def ready(browser, url: str):
    page = browser.new_page(viewport={"width": 1400, "height": 860})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    return page, errors


def type_at_top(page, text: str) -> None:
    page.evaluate("() => { const v = window.studio.view; v.dispatch({selection: {anchor: 0}}); v.focus() }")
    page.keyboard.type(text)


def kept_or_refused(page) -> None:
    """The editor's text held by the studio, or the header saying it could not be: whichever comes first."""
    page.wait_for_function("() => { const s = window.studio, t = s.view.state.doc.toString()"
                           "; return s.drafts.kept === (t === s.file.saved ? null : t)"
                           " || document.querySelector('#status').textContent.includes('could not be kept') }",
                           timeout=WAIT)


def test_text_typed_after_a_reload_is_kept_too(studio, browser):
    folder, url = studio
    page, errors = ready(browser, url.replace("/?", "/?path=pig.yaml&"))
    type_at_top(page, "# first\n")
    kept_or_refused(page)
    page.reload()
    page.wait_for_selector("#discard-draft", timeout=WAIT)  # the kept text is back (the studio read it)
    type_at_top(page, "# second\n")
    kept_or_refused(page)
    assert "could not be kept" not in page.text_content("#status")
    page.reload()
    page.wait_for_selector("#discard-draft", timeout=WAIT)
    assert page.evaluate("() => window.studio.view.state.doc.toString()").startswith("# second\n# first\n")
    page.click("#discard-draft")  # (the file as it was, for the next test)
    kept_or_refused(page)
    assert errors == []
    page.close()


def test_the_play_form_follows_the_ruleset_as_saved(studio, browser):
    folder, url = studio
    page, errors = ready(browser, url.replace("/?", "/?path=house.yaml&") + "#play")
    target = page.locator("#play-options input[data-option=target_score]")
    page.wait_for_function("() => { const i = document.querySelector('#play-options input[data-option=target_score]')"
                           "; return i && i.value === '100' }", timeout=WAIT)
    page.fill("#play-seed", "5")  # the form is kept for the tab from here on
    page.evaluate("() => { const v = window.studio.view; v.dispatch({changes: {from: v.state.doc.length, insert: "
                  "'parameters:\\n  target_score: {default: 30}\\n'}}) }")
    assert page.inner_text("#play-start") == "Save and start the game"
    page.keyboard.press("Control+s")
    page.wait_for_function("() => { const i = document.querySelector('#play-options input[data-option=target_score]')"
                           "; return i && i.value === '30' }", timeout=WAIT)
    assert page.inner_text("#play-start") == "Start the game"
    assert "target_score: {default: 30}" in (folder / "house.yaml").read_text(encoding="utf-8")
    # a reload gives back what was changed (the seed), and the new default, not the one the form was opened with
    page.reload()
    page.wait_for_function("() => { const i = document.querySelector('#play-options input[data-option=target_score]')"
                           "; return i && i.value !== '' }", timeout=WAIT)
    assert target.input_value() == "30" and page.input_value("#play-seed") == "5"
    # the game is started at the variant's target: no option sent over the file's default (it sent target_score=100)
    with page.expect_request("**/api/play/new", timeout=WAIT) as sent:
        page.click("#play-start")
    assert sent.value.post_data_json["options"] == {}
    page.wait_for_function("() => document.querySelector('#play-note').textContent.includes('started')", timeout=WAIT)
    assert errors == []
    page.close()


def test_undo_is_offered_only_where_it_can_be_taken(studio, browser):
    """Pig rolls a die after every answer: Undo was offered at each, and each press said 'dice were rolled since'."""
    folder, url = studio
    page, errors = ready(browser, url.replace("/?", "/?path=pig.yaml&"))
    game = page.evaluate("""() => fetch('/api/play/new', {method: 'POST', headers: {'content-type': 'application/json'},
        body: JSON.stringify({ruleset: 'pig.yaml', seats: ['human', 'first'], seed: 3, options: {}})})
        .then(r => r.json())""")
    seat = browser.new_page(viewport={"width": 1280, "height": 800})
    seat.on("pageerror", lambda e: errors.append(str(e)))
    seat.goto(url.split("/?")[0] + game["seats"][0]["link"])
    asked = "() => { const f = window.play && window.play.frame; return f && (f.view.over || f.asked === f.seat) }"
    seat.wait_for_function(asked, timeout=WAIT)
    seat.locator("#decision .options button").first.click()  # roll again: a die is rolled at once
    seat.wait_for_function("() => { const f = window.play.frame; return f.decisions >= 1 && (f.view.over || "
                           "f.asked === f.seat) }", timeout=WAIT)
    assert seat.evaluate("() => window.play.frame.undo") is False
    assert seat.locator("#decision button", has_text="Undo").count() == 0
    assert errors == []
    seat.close()
    page.close()


def test_a_wrong_indentation_is_said_as_one(studio, browser):
    """`parameters:` then its entry not indented: the problems list said 'unknown key' with every top-level key."""
    folder, url = studio
    page, errors = ready(browser, url.replace("/?", "/?path=house.yaml&"))
    page.evaluate("() => { const v = window.studio.view; v.dispatch({changes: {from: v.state.doc.length, insert: "
                  "'options:\\nfirst_player: {default: random}\\n'}}) }")
    page.wait_for_function("() => document.querySelector('#problems').textContent.includes(\"unknown key 'first_player'\")",
                           timeout=WAIT)
    said = page.inner_text("#problems")
    assert "'options:' on line" in said and "if 'first_player' belongs under it, indent it" in said, said
    page.evaluate("() => { const v = window.studio.view; v.dispatch({changes: {from: 0, to: v.state.doc.length, "
                  "insert: window.studio.file.saved}}) }")  # the file's text again: no draft left for another test
    kept_or_refused(page)
    assert errors == []
    page.close()


def test_a_variant_s_guide_is_read_whole_at_1024_px(studio, browser):
    """The comments of a variant just made say how to change a number, a house rule, a step: at 1,024 px they were cut
    at the editor's edge (the syntax itself), behind a scroll to the right."""
    folder, url = studio
    page = browser.new_page(viewport={"width": 1024, "height": 760})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url.replace("/?", "/?bundled=pig&"))
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    page.click("#variant-of")
    page.wait_for_function("() => window.studio.file && window.studio.file.path === 'pig-variant.yaml'", timeout=WAIT)
    page.wait_for_selector("#editor .cm-line:has-text('parameters: {NAME: {default: 5}}')", timeout=WAIT)
    wide, shown = page.evaluate("() => { const s = document.querySelector('#editor .cm-scroller')"
                                "; return [s.scrollWidth, s.clientWidth] }")
    assert wide <= shown + 1, (wide, shown)
    assert errors == []
    page.close()
