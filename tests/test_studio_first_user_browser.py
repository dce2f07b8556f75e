"""A first user's walk through the studio (session 19), in a real browser against `rulecraft studio` started in an
empty folder, each place that got in the way kept fixed:

- The empty page said a bundled ruleset opens read-only, and nothing led from there to a game of one's own: it now
  lists the ways to begin, each with its first click, and a bundled ruleset open has *Make a variant* beside *Copy
  into the folder* (one click: NAME-variant.yaml, extending it), said in the status line as it opens.

One server (an empty folder) and one browser for the module; without Chromium (or Playwright) the tests skip.
"""

from __future__ import annotations

import shutil

import pytest

from rulecraft.bundled import resolve

from studio_harness import chromium, shot, studio_server
from studio_variants import many_sequences

WAIT = 60_000  # ms: an upper bound on a busy machine, never a measure


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    folder = tmp_path_factory.mktemp("first-user")
    with studio_server([str(folder)]) as got:
        yield folder, got[0]


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def ready(browser, url: str, width: int = 1400):
    page = browser.new_page(viewport={"width": width, "height": 860})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    return page, errors


def test_an_empty_folder_leads_to_a_variant_of_a_bundled_game(studio, browser):
    folder, url = studio
    page, errors = ready(browser, url, width=1024)
    said = page.inner_text("#editor")
    assert "From a bundled game" in said and "Make a variant" in said and "From the template" in said, said
    assert "this folder has none yet" in said
    # at 1,024 px the seven tabs stand on one line (Simulate went to a second)
    assert page.evaluate("() => new Set([...document.querySelectorAll('#tabs button')].map(b => b.offsetTop)).size") == 1
    shot(page, "studio-empty.png")
    # by the keyboard: the welcome's first button opens pig, read-only, and the status says how to make it yours
    page.focus("#welcome-open")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('#status').textContent.includes('Make a variant')",
                           timeout=WAIT)
    assert page.evaluate("() => window.studio.file.bundled") == "pig" and page.is_visible("#variant-of")
    page.focus("#variant-of")
    page.keyboard.press("Enter")
    # (the status is said once the new file is open: waited for, as the file is open a moment before)
    page.wait_for_function("() => document.querySelector('#status').textContent.includes('made pig-variant.yaml, a "
                           "variant of pig')", timeout=WAIT)
    assert page.evaluate("() => window.studio.file.path") == "pig-variant.yaml" and page.is_hidden("#variant-of")
    # the keys go on in the new file's editor (the button pressed was gone, and the focus with it, to the page's top)
    assert page.evaluate("() => !!document.activeElement.closest('#editor .cm-editor')")
    assert "extends: pig" in (folder / "pig-variant.yaml").read_text(encoding="utf-8")
    # a second variant of the same game takes the next free name, never the first one's file
    page.click("#bundled a:text-is('pig')")
    page.wait_for_function("() => window.studio.file && window.studio.file.bundled === 'pig'", timeout=WAIT)
    page.click("#variant-of")
    page.wait_for_function("() => window.studio.file && window.studio.file.path === 'pig-variant-2.yaml'", timeout=WAIT)
    # "Name it" (from the template) puts the focus in the new ruleset's name
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    assert "open it on the left" in page.inner_text("#editor")
    page.click("#welcome-new")
    assert page.evaluate("() => document.activeElement.id") == "new-name"
    assert errors == []
    page.close()


def test_a_variant_of_many_sequences_is_drawn_one_picked_sequence_at_a_time(studio, browser):
    folder, url = studio
    many_sequences(folder, 12, 40)
    page, errors = ready(browser, url.replace("/?", "/?path=big-v.yaml&") + "#variants", width=1024)
    pick = page.locator("#variant-sequence")
    pick.wait_for(state="visible", timeout=WAIT)
    assert pick.locator("option").count() == 12 and pick.input_value() == "s0"
    assert "12 sequences differ" in page.inner_text("#variant-note")
    assert page.inner_text("#variant-text").count("changed parameter p") == 40
    pick.focus()
    page.keyboard.press("End")  # by the keyboard: the last sequence that differs
    page.wait_for_function("() => document.querySelector('#variant-chart').textContent.includes('s11: Sequence 11')",
                           timeout=WAIT)
    assert "s0: Sequence 0" not in page.inner_text("#variant-chart")
    shot(page, "studio-variants-many.png")
    assert errors == []
    page.close()


def test_a_reload_during_a_simulation_keeps_its_form_and_says_the_run_stopped(studio, browser):
    folder, url = studio
    shutil.copy(resolve("pig"), folder / "pig.yaml")
    page, errors = ready(browser, url.replace("/?", "/?path=pig.yaml&") + "#simulate", width=1024)
    page.fill("#sim-form input[type=number] >> nth=0", "5000")  # thousands of long games: never over at the reload
    page.fill("#sim-form textarea >> nth=0", "target_score=1000")
    page.select_option("#sim-sweep", "wipe_face")
    page.fill("#sim-sweep-values", "1, 2")
    page.select_option("#sim-sweep", "")  # (a sweep asked, then not: its values stay for later)
    page.click("#sim-run")
    page.wait_for_function("() => window.studio.simulate.total > 0", timeout=WAIT)  # started by the studio
    page.reload()
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    assert page.input_value("#sim-form input[type=number] >> nth=0") == "5000"
    assert page.input_value("#sim-form textarea >> nth=0") == "target_score=1000"
    assert page.input_value("#sim-sweep-values") == "1, 2"
    note = page.inner_text("#sim-note")
    assert "reloaded" in note and "5000 games" in note and "Run" in note, note
    assert errors == []
    page.close()


def test_a_reload_after_a_simulation_shows_its_result_again(studio, browser):
    folder, url = studio
    shutil.copy(resolve("pig"), folder / "pig.yaml")
    page, errors = ready(browser, url.replace("/?", "/?path=pig.yaml&") + "#simulate", width=1024)
    page.fill("#sim-form input[type=number] >> nth=0", "8")
    page.fill("#sim-form textarea >> nth=0", "target_score=20")
    page.click("#sim-run")
    page.wait_for_function("() => window.studio.simulate.info.results === 1", timeout=WAIT)
    text = page.inner_text("#sim-out pre")
    page.reload()
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    page.wait_for_function("() => window.studio.simulate.info.results === 1", timeout=WAIT)
    assert "kept across the reload" in page.inner_text("#sim-note")
    assert page.inner_text("#sim-out pre") == text and page.locator("#sim-out figure img").count() >= 3
    page.wait_for_selector("#sim-out .sim-chart img", timeout=WAIT)  # its coverage chart, drawn again
    assert errors == []
    page.close()


def test_a_reload_keeps_the_play_tab_s_form(studio, browser):
    """The Play tab's form (players, seed, who sits where, the options) came back as the defaults after a reload."""
    folder, url = studio
    shutil.copy(resolve("pig"), folder / "pig.yaml")
    page, errors = ready(browser, url.replace("/?", "/?path=pig.yaml&") + "#play", width=1024)
    page.wait_for_selector("#play-start:not([disabled])", timeout=WAIT)
    page.fill("#play-players", "3")
    page.dispatch_event("#play-players", "change")
    page.select_option("#play-seats li:nth-child(2) select", "greedy")
    page.fill("#play-seed", "9")
    page.fill("#play-options input[data-option='target_score']", "50")
    page.reload()
    page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
    page.wait_for_selector("#play-start:not([disabled])", timeout=WAIT)
    assert page.input_value("#play-players") == "3" and page.input_value("#play-seed") == "9"
    assert [s.input_value() for s in page.locator("#play-seats select").all()] == ["human", "greedy", "random"]
    assert page.input_value("#play-options input[data-option='target_score']") == "50"
    assert errors == []
    page.close()
