"""The studio's Simulate tab in a real browser (Playwright driving Debian's Chromium against `rulecraft studio`
started as a command): 200 games of pig (the bundled one, copied) played from the page, progress shown, the report's plots
and the chart shaded by coverage drawn; a seed-matched comparison with its marks; a second, long run cancelled
from the page while the editor goes on checking. Without Chromium (or Playwright) the tests skip and say why.

With RULECRAFT_STUDIO_SCREENSHOTS=FOLDER set, the Simulate screenshots in docs/studio.md are written there.
"""

from __future__ import annotations

import re
import shutil

import pytest

from rulecraft.bundled import resolve

from studio_harness import chromium, shot, studio_server

WAIT = 90_000  # ms: an upper bound on a busy machine, never a measure


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    folder = tmp_path_factory.mktemp("studio")
    shutil.copy(resolve("pig"), folder / "pig.yaml")
    with studio_server([str(folder)]) as got:
        yield folder, got[0]


@pytest.fixture(scope="module")
def page(studio):
    folder, url = studio
    with chromium() as browser:
        pg = browser.new_page(viewport={"width": 1500, "height": 950})
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto(url.replace("/?", "/?path=pig.yaml&"))
        pg.wait_for_selector("body[data-ready='1']", timeout=WAIT)
        pg.click("#tabs button[data-tab='simulate']")
        yield pg
        assert errors == []
        browser.close()


def info(page) -> dict:
    return page.evaluate("() => { const i = window.studio.simulate.info; return {...i, last: undefined} }")


def drawn(page, selector: str) -> int:
    """How many images under `selector` the browser decoded (an SVG it could not read has no width)."""
    return page.evaluate("(sel) => [...document.querySelectorAll(sel)].filter(i => i.complete && i.naturalWidth > 0)"
                         ".length", selector)


def test_the_options_boxes_say_what_the_ruleset_takes(page):
    """Under the form: every parameter and option of the open ruleset with its default and its range or choices, its
    doc in the tooltip (session 17: the boxes showed one example; a designer sweeping an option read the file to
    find its name and values)."""
    page.wait_for_function("() => document.querySelector('#sim-knobs').textContent.includes('first_player')",
                           timeout=WAIT)
    said = page.inner_text("#sim-knobs")
    for part in ("target_score: 100 (10 to 1000)", "wipe_face: 1 (1 to 6)", "first_player: seat_one or random"):
        assert part in said, said
    assert page.get_attribute("#sim-knobs code >> nth=0", "title") == "Points needed to win."


def test_200_games_of_pig_from_the_page_progress_and_plots(page):
    page.fill("#tab-simulate input[type=number] >> nth=0", "200")
    page.click("#sim-run")
    page.wait_for_function("() => window.studio.simulate.info.results >= 1", timeout=WAIT)
    got = info(page)
    assert got["progressSeen"] >= 1 and got["cancelled"] == 0
    assert page.inner_text("#sim-count") == "200 games played"
    names = page.eval_on_selector_all(".sim-figure", "fs => fs.map(f => f.dataset.name)")
    assert names[:3] == ["win_rate", "scores", "length_decisions"] and "length_turns" in names
    page.wait_for_function("() => [...document.querySelectorAll('.sim-figure img')].every(i => i.complete)",
                           timeout=WAIT)
    assert drawn(page, ".sim-figure img") == len(names)
    page.wait_for_selector(".sim-chart img", timeout=WAIT)  # the chart shaded by coverage
    assert drawn(page, ".sim-chart img") == 1
    assert "step no game reached" in page.inner_text(".sim-coverage")
    assert page.locator("#sim-out svg").count() == 0  # plots are images, never markup in the page
    # session 17: the run's time is said (a long one ticks, below); the steps no game reached are named as a designer
    # finds them (they were node ids, 'game/1.else.1'), and a click puts the cursor on the step
    assert re.fullmatch(r"in \d+ s", page.inner_text("#sim-clock")), page.inner_text("#sim-clock")
    never = page.locator(".sim-never button").first
    label = never.inner_text()
    assert label.startswith("The game, step 1") and "(line " in label, label
    never.click()
    assert "random(players)" in page.evaluate(
        "() => { const s = window.studio.view.state; return s.doc.lineAt(s.selection.main.head).text }")
    assert page.locator(".sim-side[open]").count() == 1  # a run alone: its plots shown
    page.evaluate("() => document.querySelector('.sim-coverage').scrollIntoView()")
    shot(page, "studio-simulate-coverage.png")
    page.evaluate("() => document.querySelector('#tab-simulate').scrollTop = 0")
    shot(page, "studio-simulate.png")


def test_a_seed_matched_comparison_marks_what_is_beyond_noise(page):
    page.fill("#tab-simulate input[type=number] >> nth=0", "200")
    page.select_option("#sim-form select", "same")
    page.fill(".sim-b textarea", "target_score=50")
    page.click("#sim-run")
    page.wait_for_function("() => window.studio.simulate.info.results >= 2", timeout=WAIT)
    marked = page.locator(".sim-compare tr.marked")
    assert marked.count() >= 1
    assert "turns per game" in page.inner_text(".sim-beyond")  # shorter games to 50 points: marked
    assert page.locator(".sim-side").count() == 2
    # session 17: each side's own plots folded (side by side their words were too small to read); the table in
    # groups named by the ruleset's words for each metric, a tally's rows by key folded, and what each row is counted on
    assert page.locator(".sim-side[open]").count() == 0
    assert "Turns played in a game" in page.inner_text(".sim-compare tr.metric >> nth=0")
    keys = page.locator(".sim-compare button.keys").first
    hidden = page.locator(".sim-compare tr.keyed:not([hidden])").count()
    assert hidden == 0 and "beyond noise" in keys.inner_text()
    keys.click()
    assert page.locator(".sim-compare tr.keyed:not([hidden])").count() > 0
    assert keys.get_attribute("aria-expanded") == "true"
    assert re.fullmatch(r"200 / 200", page.inner_text(".sim-compare tr:has-text('per game') td.count >> nth=0"))
    keys.click()
    assert "Beyond noise: " in page.inner_text(".sim-beyond")
    shot(page, "studio-simulate-compare.png")
    page.select_option("#sim-form select", "")


def edit(page, old: str, new: str) -> None:
    """Replace the first `old` of the editor's text by `new`, as typing would."""
    page.evaluate("""([old, neu]) => {
        const view = window.studio.view, at = view.state.doc.toString().indexOf(old)
        view.dispatch({changes: {from: at, to: at + old.length, insert: neu}})
    }""", [old, new])


def test_cancel_stops_a_long_run_and_the_editor_works_meanwhile(page):
    # greedy bots: 5,000 games of them take minutes on any machine (5,000 random ones ended in a second on an idle one,
    # before the test pressed Cancel: the run must still be going when it does)
    page.fill("#tab-simulate input[type=number] >> nth=0", "5000")
    page.fill("#sim-form input[title^='one per seat']", "greedy")
    seen = info(page)["progressSeen"]
    page.click("#sim-run")
    page.wait_for_function(f"() => window.studio.simulate.info.progressSeen > {seen} + 1", timeout=WAIT)
    assert page.is_enabled("#sim-cancel") and not page.is_enabled("#sim-run")
    # the clock ticks while the games go on, and says about how long is left once some have ended
    page.wait_for_function("() => / s so far, about .+ left$/.test(document.querySelector('#sim-clock').textContent)",
                           timeout=WAIT)
    shot(page, "studio-simulate-progress.png")
    edit(page, "set first = players[0]", "set frist = players[0]")  # the editor is checked while the games go on
    page.wait_for_selector("#problems li", timeout=WAIT)
    edit(page, "set frist = players[0]", "set first = players[0]")
    page.wait_for_function("() => document.querySelectorAll('#problems li').length === 0", timeout=WAIT)
    assert page.is_enabled("#sim-cancel")  # the run goes on
    page.click("#sim-cancel")
    page.wait_for_function("() => window.studio.simulate.info.cancelled >= 1", timeout=WAIT)
    text = page.inner_text("#sim-count")
    done = int(re.match(r"cancelled after (\d+) of 5000 games", text).group(1))
    assert done < 5000 and info(page)["results"] == 2  # the long run gave no result
    assert page.is_enabled("#sim-run") and not page.is_enabled("#sim-cancel")
    # a ruleset with an error is not run: said with its place in the folder's terms (it was the absolute path) and a
    # button to the line; the count says 'not run' (it stayed at 'starting…')
    edit(page, "set first = players[0]", "set frist = players[0]")
    page.wait_for_selector("#problems li", timeout=WAIT)
    page.click("#sim-run")  # Save and run
    page.wait_for_selector("#sim-note button.go-to", timeout=WAIT)
    assert page.inner_text("#sim-note").startswith("pig.yaml cannot be played: pig.yaml:") and "/" not in page.inner_text("#sim-note").split(": E")[0]
    assert page.inner_text("#sim-count") == "not run"
    page.click("#sim-note button.go-to")
    assert "set frist" in page.evaluate("() => { const s = window.studio.view.state; return s.doc.lineAt(s.selection.main.head).text }")
    edit(page, "set frist = players[0]", "set first = players[0]")
    page.evaluate("() => { document.querySelector('#status').textContent = '' }")  # the next 'saved' is this save's
    page.keyboard.press("Control+s")
    page.wait_for_function("() => document.querySelector('#status').textContent.startsWith('saved')", timeout=WAIT)


def test_a_sweep_of_one_setting_plots_a_row_against_its_values(page):
    """Session 18: how a number changes the game was a comparison of two values at a time. A sweep plays the open
    ruleset at a few values of one of its parameters (listed with their ranges), N games each, and plots the row the
    designer picks against the value, with its intervals and a table of the figures."""
    page.wait_for_function("() => [...document.querySelectorAll('#sim-sweep option')].some(o => o.value === "
                           "'target_score')", timeout=WAIT)
    assert page.inner_text("#sim-sweep option[value='target_score']") == "target_score (10 to 1000)"
    page.fill("#tab-simulate input[type=number] >> nth=0", "30")
    page.fill("#sim-form input[title^='one per seat']", "random")
    page.fill("#sim-form textarea >> nth=0", "")
    page.select_option("#sim-sweep", "target_score")
    assert page.input_value("#sim-sweep-values") == "10, 100, 1000"  # its range and default, to edit
    page.fill("#sim-sweep-values", "20, 60, 200")
    before = info(page)["results"]
    page.click("#sim-run")
    page.wait_for_function(f"() => window.studio.simulate.info.results > {before}", timeout=WAIT)
    assert page.inner_text("#sim-count") == "30 + 30 + 30 games played"
    assert "30 games at each of target_score = 20, 60, 200" in page.inner_text(".sim-sweep h3")
    page.wait_for_selector(".sim-sweep-plot img", timeout=WAIT)  # the first row's plot: the win rate of seat 1
    turns = page.eval_on_selector_all("#sim-sweep-row option", "os => os.findIndex(o => o.textContent === "
                                      "'turns: per game')")
    assert turns > 0
    page.select_option("#sim-sweep-row", str(turns))
    page.wait_for_function("() => { const i = document.querySelector('.sim-sweep-plot img'); return i && "
                           "i.alt.startsWith('turns: per game') && i.complete && i.naturalWidth > 0 }", timeout=WAIT)
    cells = page.eval_on_selector_all(".sim-sweep-table tr", "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
    assert [c[0] for c in cells] == ["target_score", "20", "60", "200"] and cells[0][1] == "turns: per game"
    means = [float(c[1]) for c in cells[1:]]
    assert means[0] < means[1] < means[2], cells  # more points to reach: more turns
    shot(page, "studio-simulate-sweep.png")
    page.select_option("#sim-sweep", "")


def test_run_by_the_keyboard_keeps_the_focus_on_run_and_cancel(page):
    """Enter on Run disabled the button that had the focus, and the focus fell to the top of the page: Cancel, then
    Run again, were a walk with Tab away (session 18). The focus goes to Cancel while the games play and back to Run
    when they end."""
    page.fill("#tab-simulate input[type=number] >> nth=0", "4")
    page.evaluate("() => { window.focusSeen = []; document.addEventListener('focusin', e => "
                  "window.focusSeen.push(e.target.id || e.target.tagName)) }")
    before = info(page)["results"]
    page.focus("#sim-run")
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => window.studio.simulate.info.results > {before}", timeout=WAIT)
    assert page.evaluate("() => document.activeElement.id") == "sim-run"
    assert page.evaluate("() => window.focusSeen") == ["sim-run", "sim-cancel", "sim-run"]
