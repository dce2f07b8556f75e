"""A seat played with the keyboard alone, in a real browser (`rulecraft studio --play pig`: P1 a person, P2 a bot).
Session 18: the answer's button went away with the question it answered, the focus fell to the top of the page, and
the next answer took a walk with Tab through the whole table; at the end, Play again was one more walk. Now the focus
stays on the decision: Enter, Enter, ... plays the game, and Play again is where the focus is at the end."""

from __future__ import annotations

import shutil

import pytest

from rulecraft.bundled import resolve

from studio_harness import chromium, studio_server

WAIT = 60_000  # ms: an upper bound on a busy machine, never a measure
STATE = """() => { const f = window.play && window.play.frame
  return f && {n: f.decisions, mine: f.asked === f.seat, over: f.view.over,
               focus: document.activeElement && document.activeElement.closest('#decision') ?
                 document.activeElement.textContent : null} }"""


@pytest.fixture(scope="module")
def seat_link(tmp_path_factory):
    folder = tmp_path_factory.mktemp("keys")
    shutil.copy(resolve("pig"), folder / "pig.yaml")
    args = [str(folder), "--play", str(folder / "pig.yaml"), "--agent", "human", "--agent", "random", "--seed", "3",
            "--set", "target_score=20", "--pace", "0"]
    with studio_server(args, enough=lambda got: bool(got) and got[-1].startswith("spectator:")) as got:
        yield got[1].split(": ", 1)[1]


def test_a_seat_answers_with_enter_alone_and_play_again_has_the_focus_at_the_end(seat_link):
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1024, "height": 768})
        page.set_default_timeout(WAIT)
        page.goto(seat_link)
        page.wait_for_function(f"() => {{ const s = ({STATE})(); return s && (s.mine || s.over) }}")
        answered = 0
        while True:
            s = page.evaluate(STATE)
            if s["over"]:
                break
            # asked: the focus is on the question's first answer (the page just opened, or the last answer's button
            # went with its question)
            assert s["mine"] and s["focus"] == "Yes", s
            # 'No' at the second question of a turn, 'Yes' otherwise: the turn ends, the bot plays, P1 is asked again
            page.keyboard.press("Tab" if answered % 2 else "Enter")
            if answered % 2:
                assert page.evaluate(STATE)["focus"] == "No"
                page.keyboard.press("Enter")
            answered += 1
            page.wait_for_function(f"n => {{ const s = ({STATE})(); return s.n > n && (s.mine || s.over) }}",
                                   arg=s["n"])
            assert answered < 200
        page.wait_for_function(f"() => ({STATE})().focus === 'Play again'")
        page.keyboard.press("Enter")
        page.wait_for_function("() => !document.title.startsWith('Game over')")
        page.wait_for_function(f"() => {{ const s = ({STATE})(); return s && (s.mine && s.focus === 'Yes' || s.over) }}")
        assert answered >= 2
