"""`rulecraft replay --seat N` tells a logged game as seat N read it live (`play --seat N`): the public lines and
that seat's own, nothing private to another seat; `--story` tells it whole, as a referee reads it afterwards. The game
has hidden hands, a bluff settled by a hand and a sealed bid (tests/cases/secrecy/crown-call.yaml). docs/secrecy.md."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from rulecraft.tools.table.play import play, replay_log
from rulecraft.tools.table.storyout import read_story

CROWN = str(Path(__file__).parent / "cases" / "secrecy" / "crown-call.yaml")


def _seen(records: list[dict], seat: int) -> list[str]:
    return [t for r in records for t in [r["private"] if r["seats"] and seat in r["seats"] else r["public"]]
            if t is not None]


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    """The log of a game of bots, and the story each seat read of it live (`play --seat N --story-json`)."""
    folder = tmp_path_factory.mktemp("replay-seat")
    log = folder / "game.log"
    live = {}
    for seat in (1, 2, 3):
        story = folder / f"seat{seat}.jsonl"
        code = play(CROWN, None, [], 5, str(log), {}, quiet=True, out=io.StringIO(), seat=seat - 1,
                    story_path=str(story))
        assert code == 0
        live[seat] = read_story(story.read_text())
    return str(log), live


def _replay(log: str, **kw) -> tuple[int, list[str]]:
    out = io.StringIO()
    code = replay_log(log, out=out, ruleset=CROWN, **kw)
    return code, out.getvalue().splitlines()


@pytest.mark.parametrize("seat", [1, 2, 3])
def test_a_replay_for_a_seat_tells_exactly_what_that_seat_read_live(logged, seat):
    log, live = logged
    code, lines = _replay(log, seat=seat - 1)
    assert code == 0
    assert lines[-2].startswith("winner:") and lines[-1].endswith("identical")
    assert lines[:-2] == _seen(live[seat], seat)
    others = {r["private"] for s, records in live.items() if s != seat for r in records if r["seats"]}
    assert others and not others & set(lines), f"seat {seat} reads another seat's private line"


def test_the_whole_story_only_when_asked(logged):
    log, live = logged
    code, plain = _replay(log)
    assert code == 0 and len(plain) == 2  # the verdict alone, as before
    code, whole = _replay(log, story=True)
    private = {r["private"] for records in live.values() for r in records if r["seats"]}
    assert private and private <= set(whole)  # every seat's own lines: a referee's view
    assert any("(chosen in secret)" in t or "has answered" in t for t in _seen(live[1], 1))
    assert _replay(log, seat=3)[0] == 2  # no fourth seat: said, nothing printed
