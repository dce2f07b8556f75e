"""What the tests share: `play_seeded`, the one loop that plays a seeded game to its end; and the order the files
run in (the longest first, see LONGEST).

A test that needs a game played by bots calls `play_seeded` (a module-level helper imports it, `from conftest
import play_seeded`; a test can also ask for the fixture of the same name). A test whose loop does something else
between decisions (a scripted answer, a copy of the game, a referee's look) passes `each` or `until`, or keeps its
own loop when it is not this one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

import pytest

if TYPE_CHECKING:  # the engine is imported when a game is played, not by every test session that loads this file
    from rulecraft.model.ruleset import Ruleset
    from rulecraft.runtime.decisions import Decision
    from rulecraft.runtime.game import Game


def play_seeded(ruleset: Ruleset, seed: int, players: Optional[int] = None, *,
                agents: Optional[Callable[[int, int], Any]] = None, views: bool = False,
                each: Optional[Callable[[Game, Decision], Any]] = None,
                until: Optional[Callable[[Game], bool]] = None, **options: Any) -> Game:
    """`Game(ruleset, players, seed, **options)` played until it is over (or `until(game)` is true before a
    decision): each seat's agent is `agents(seat, seed)` (a RandomAgent by default), given the seat's view when
    `views` (as `rulecraft play` gives it) or None; `each(game, decision)` is called before every answer.
    Returns the game: its winners, scores, story (`narrative`), decisions and steps are on it."""
    from rulecraft.agents.base import RandomAgent
    from rulecraft.runtime.game import Game

    g = Game(ruleset, players, seed, **options)
    seats = [(agents or RandomAgent)(p.seat, seed) for p in g.players]
    while not g.over and (until is None or not until(g)):
        d = g.pending
        assert d is not None, "a game that is not over waits for a decision"
        if each is not None:
            each(g, d)
        g.apply(seats[d.player].choose(d, g.view(d.player) if views else None))
    return g


@pytest.fixture(name="play_seeded")
def _play_seeded() -> Callable[..., Game]:
    """`play_seeded` (above) for a test that takes it as a fixture."""
    return play_seeded


# The files that take longest (CPU seconds, user+sys, of `pytest -p no:xdist FILE` alone: docs/architecture.md, "The
# suite's time"), longest first. They are collected, and so run, before every other file: `make test` gives
# pytest-xdist `--dist loadfile --no-loadscope-reorder`, which hands whole files to its workers in this order, each
# worker taking the next file as it nears the end of its own. xdist's own order (by number of tests) handed out last
# the files with fewest tests, among them the studio's browser files (2-3 tests, 10-23 s each), test_fuzz_logs.py
# (3 tests, 9 s) and test_chart_quoting.py (3 tests, 8 s): one of those started last keeps one worker busy while the
# other has nothing left. With the long files first, the short ones even the two workers out at the end. A file
# missing from the list only runs later; a name that is no longer a file is ignored. (test_signals.py is here for its
# waits as much as its CPU: five runs of `simulate` it lets play, then stops and watches end.)
LONGEST = [
    "test_print.py", "test_cluster.py", "test_chart_truth.py", "test_lsp.py", "test_security_hostile.py",
    "test_aid.py", "test_fuzz.py", "test_studio_simulate.py", "test_studio_play_browser.py", "test_signals.py",
    "test_studio_simulate_browser.py", "test_parser_cache.py", "test_security.py", "test_variants.py",
    "test_graph_json.py", "test_engines.py", "test_chart_truth_cases.py", "test_table_play.py", "test_table_undo.py",
    "test_secrecy_games.py", "test_studio_browser.py", "test_compiler.py", "test_scenarios.py",
]


def pytest_configure(config) -> None:
    """Ctrl-C as a terminal sends it, whoever started the session: a session started as a background job of a
    shell (`make test &`, nohup, some CI runners) has SIGINT ignored, and a process started with it ignored
    keeps it ignored (Python installs no handler then, and so do the commands the tests start: they inherit the
    ignoring). Every test that presses Ctrl-C then waited out its bound and failed (six of them, in a run started
    with `&`). A handler here (not inherited as such: a child's SIGINT is back to its default) puts it back."""
    import signal

    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(items: list) -> None:
    """The files in LONGEST first, in its order; the others after them, as collected (a file's tests keep theirs)."""
    rank = {name: i for i, name in enumerate(LONGEST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST)))


@pytest.hookimpl(optionalhook=True)  # (xdist's hook: unknown, and no error, under -p no:xdist)
def pytest_xdist_auto_num_workers(config) -> int:
    """`-n auto` (make test): one worker more than the machine's cores. About a sixth of the suite's time waits
    on other processes (Chromium, Graphviz, a Dask cluster, a language server, a studio, a pty game), during
    which a worker per core would leave its core idle: on 2 cores, 3 workers ran the suite in 272 s of wall time
    where 2 took 322 s (the same CPU time). RULECRAFT_TEST_WORKERS sets the number outright."""
    import os

    given = os.environ.get("RULECRAFT_TEST_WORKERS", "")
    if given.isdigit() and int(given) > 0:
        return int(given)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return cores + 1 if cores > 1 else 1
