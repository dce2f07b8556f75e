"""The arguments of each verb: `args_<verb>(parser)`, with the small argument types they share."""

from __future__ import annotations

import argparse

# ---------------------------------------------------------------------------------------
# arguments of each verb


def _shown(text: str) -> str:
    """A value as a usage error quotes it: at most 40 characters (a 5,000-digit number is not repeated back)."""
    return text if len(text) <= 40 else text[:37] + "..."


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got '{_shown(text)}'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {value}")
    return value


def _cluster(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("expected the address of a Dask scheduler (tcp://HOST:PORT), got nothing")
    return text


def _seconds(text: str, low: float = 0, high: float = 3600, zero: bool = False) -> float:
    """A number of seconds, finite and within its bounds (nan, inf and 1e308 are refused: a time-out past the
    platform's clock was an internal error)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got '{_shown(text)}'") from None
    if not (low <= value <= high if zero else low < value <= high):
        raise argparse.ArgumentTypeError(f"expected a number of seconds {'from' if zero else 'above'} {low:g} and at "
                                         f"most {high:g}, got '{_shown(text)}'")
    return value


def _time_limit(text: str) -> float:
    return _seconds(text, high=86400)


def _pace(text: str) -> float:
    return _seconds(text, high=10, zero=True)


def _names(text: str) -> list[str]:
    """Player names: each one printable line of at most 40 characters, none empty, no two the same (the rule a
    saved game's names meet too: rulecraft.runtime.gamelog.names_problem)."""
    from rulecraft.runtime.gamelog import names_problem

    names = [n.strip() for n in text.split(",")]
    problem = names_problem(names)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return names


def _cluster_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cluster", metavar="ADDRESS", type=_cluster,
                   help="play on the Dask scheduler at ADDRESS (e.g. tcp://10.0.0.5:8786) instead of local worker "
                        "processes; needs pip install 'rulecraft[cluster]'; results do not depend on it")
    p.add_argument("--cluster-timeout", metavar="SECONDS", type=_seconds, dest="cluster_timeout",
                   help="how long to wait for the scheduler to answer, and then for a worker (default 10)")


def _seed(text: str) -> int:
    """A seed a log and a save can hold, so the game always replays and resumes (issue 38)."""
    from rulecraft.runtime.rng import SEED_END, SEED_MIN

    try:
        value = int(text) if len(text) <= 40 else None
    except ValueError:
        value = None
    if value is None:
        raise argparse.ArgumentTypeError(f"a seed is a whole number, got '{_shown(text)}'")
    if not SEED_MIN <= value < SEED_END:
        raise argparse.ArgumentTypeError(f"a seed is a whole number from -2**63 to 2**64 - 1, got '{_shown(text)}'")
    return value


def seed_problem(args) -> str | None:
    """A usage error when the games of `simulate` or `compare` (seeds SEED..SEED+GAMES-1) pass the seeds' range."""
    seed, games = getattr(args, "seed", None), getattr(args, "games", None)
    if not (isinstance(seed, int) and isinstance(games, int)):
        return None  # (a verb without games imports no runtime: validate stays light)
    from rulecraft.runtime.rng import SEED_END

    if seed + games > SEED_END:
        return f"argument --seed: the games' seeds {seed}..{seed + games - 1} pass 2**64 - 1; give a smaller seed"
    return None


def _ruleset(p: argparse.ArgumentParser, dest: str = "ruleset", metavar: str = "RULESET") -> None:
    p.add_argument(dest, metavar=metavar, help="a ruleset file or the name of a bundled ruleset")


def args_list(p: argparse.ArgumentParser) -> None:
    p.add_argument("--all", action="store_true",
                   help="one flat list, the examples among the games, without the 'examples:' header")
    p.add_argument("--names", action="store_true", help="print only the names, one per line (for scripts)")


def args_validate(p: argparse.ArgumentParser) -> None:
    p.add_argument("rulesets", metavar="RULESET", nargs="+",
                   help="ruleset files or names of bundled rulesets")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text (default) or json: one JSON list of {ruleset, ok, diagnostics}")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="print only the diagnostics: no 'ok:' lines, no summary")


def args_play(p: argparse.ArgumentParser) -> None:
    _ruleset(p)
    p.add_argument("--players", type=_positive_int, metavar="N", help="number of players (default: the ruleset's)")
    p.add_argument("--agent", action="append", metavar="KIND", default=[],
                   help="who decides for the next seat: random, first, greedy, human, script:FILE or "
                        "python:MODULE:CLASS; repeat once per seat (the last kind fills the remaining seats, "
                        "human excepted); default: all random")
    p.add_argument("--seed", type=_seed, metavar="S", default=1,
                   help="random seed (default 1); the same seed and decisions replay the same game")
    p.add_argument("--log", metavar="FILE", help="write the game log (JSON lines) here, line by line")
    p.add_argument("--set", action="append", metavar="NAME=VALUE", default=[],
                   help="change a parameter or option for this game; repeatable")
    p.add_argument("--names", metavar="A,B,...", type=_names, help="player names, comma separated")
    p.add_argument("--time-limit", type=_time_limit, metavar="SECONDS",
                   help="a human who does not answer in time gets the decision's default")
    p.add_argument("--pace", type=_pace, metavar="SECONDS",
                   help="when a person plays at a terminal, the pause before each line of the others' moves "
                        "(default 0.6; 0 for none; never when the output is piped)")
    p.add_argument("--quiet", action="store_true", help="print only the result")
    p.add_argument("--check", action="store_true", help="check card conservation after every step (slower)")
    p.add_argument("--save", metavar="FILE",
                   help="keep the game's state in FILE, rewritten whole (atomically) after every decision")
    p.add_argument("--resume", metavar="FILE",
                   help="go on with a game saved by --save (players, seed and --set come from it; it keeps saving "
                        "there); with --log, that log is continued")
    p.add_argument("--seat", type=_positive_int, metavar="N",
                   help="tell the story as seat N reads it (1 is the first player): the public lines and that "
                        "seat's own, nothing private to another seat; for a game of bots too (a referee's view)")
    p.add_argument("--story-json", metavar="FILE", dest="story_json",
                   help="write the story as JSON too, one record per line: who may read it (seats, names), the "
                        "private text, what the others read (public), the decision it came from; '-': standard "
                        "output (the story in words then goes to standard error); with --seat, that seat's story")


def args_replay(p: argparse.ArgumentParser) -> None:
    p.add_argument("log", metavar="LOG", help="a game log written by 'rulecraft play --log'")
    p.add_argument("--partial", action="store_true",
                   help="accept a log that stops before the game ended (e.g. a killed game) if it replays identically")
    p.add_argument("--quiet", action="store_true", help="print only the verdict")
    p.add_argument("--ruleset", metavar="RULESET",
                   help="replay with this ruleset (a path or bundled name) instead of the one the log names")
    p.add_argument("--seat", type=_positive_int, metavar="N",
                   help="print the game's story first as seat N read it (1 is the first player): the public lines "
                        "and that seat's own, exactly what 'play --seat N' told; what the rules reveal at the end too")
    p.add_argument("--story", action="store_true",
                   help="print the game's whole story first, every seat's private lines and secret answers with it "
                        "(a referee's view after the game)")


def args_test(p: argparse.ArgumentParser) -> None:
    p.add_argument("scenarios", nargs="+", metavar="SCENARIO",
                   help="a scenario file (docs/testing.md), or a folder: every .yaml file under it")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="under a failed scenario, every problem and the story it played")


def args_render(p: argparse.ArgumentParser) -> None:
    _ruleset(p)
    p.add_argument("--sequence", metavar="ID", help="draw only this sequence")
    p.add_argument("--format", choices=("svg", "png", "pdf", "dot", "json"),
                   help="output format (without it: the output file's suffix, .svg .png .pdf .dot .gv or .json); "
                        "json: the sequence graph as data (every node and edge, docs/sheets.md)")
    p.add_argument("-o", "--output", metavar="OUT", required=True,
                   help="output file ('-': standard output, for dot and json); without --sequence, the start "
                        "sequence (each other sequence goes next to it as STEM-SEQUENCE.EXT; a PDF gets one page "
                        "per sequence)")
    p.add_argument("--overview", action="store_true",
                   help="one chart of the whole game: its stages, the round, the phases and the turn")
    p.add_argument("--coverage", metavar="FILE",
                   help="shade each step by how often it ran, from 'rulecraft simulate --coverage FILE'")
    _detail(p)


def args_sheets(p: argparse.ArgumentParser) -> None:
    _ruleset(p)
    p.add_argument("-o", "--output", metavar="FILE.pdf", required=True, help="output PDF")
    p.add_argument("--paper", choices=("a4", "letter"), default="a4", help="paper size (default a4)")
    p.add_argument("--coverage", metavar="FILE",
                   help="shade each step by how often it ran, from 'rulecraft simulate --coverage FILE'")
    _detail(p)


def _detail(p: argparse.ArgumentParser) -> None:
    p.add_argument("--detail", choices=("players", "full"), default="players",
                   help="players (default): the rules in words, without the engine's bookkeeping; "
                        "full: every step, with its rule text, for a designer")


def args_book(p: argparse.ArgumentParser) -> None:
    _ruleset(p)
    p.add_argument("-o", "--output", metavar="FILE.html", required=True,
                   help="output page: FILE.html, or FILE.pdf (printed by headless Chromium)")
    _detail(p)


def args_aid(p: argparse.ArgumentParser) -> None:
    _ruleset(p)
    p.add_argument("-o", "--output", metavar="FILE.pdf", required=True, help="output PDF")
    p.add_argument("--paper", choices=("a4", "letter"), default="a4", help="paper size (default a4)")


def args_simulate(p: argparse.ArgumentParser) -> None:
    _ruleset(p)
    p.add_argument("--games", type=_positive_int, metavar="N", required=True, help="number of games")
    p.add_argument("--players", type=_positive_int, metavar="N", help="number of players")
    p.add_argument("--agent", action="append", metavar="KIND", default=[],
                   help="the bot for the next seat (random, first, greedy[:ROLLOUTS[:DEPTH]], script:FILE, "
                        "python:MODULE:CLASS); the last one fills the remaining seats; default random")
    p.add_argument("--seed", type=_seed, metavar="S", default=1,
                   help="seed of the first game (game i uses S+i); default 1")
    p.add_argument("--workers", type=_positive_int, metavar="W",
                   help="worker processes (default and at most: the number of cores, and no more than the games); "
                        "results do not depend on it")
    _cluster_args(p)
    p.add_argument("--set", action="append", metavar="NAME=VALUE", default=[],
                   help="change a parameter or option for every game; repeatable")
    p.add_argument("--check", action="store_true",
                   help="check card conservation after every step of every game, and work out every 'log' text "
                        "(a simulation otherwise skips the story nobody reads) (slower)")
    p.add_argument("--json", metavar="FILE", help="also write every game's result and the summary as JSON")
    p.add_argument("--csv", metavar="FILE", help="also write one row per game (CSV): seed, winners, scores, length, metrics")
    p.add_argument("--coverage", metavar="FILE",
                   help="write how often each node of the sequence graph ran (JSON), with the nodes never reached")
    p.add_argument("--report", metavar="DIR",
                   help="write an HTML report with plots (PNG) into DIR: win rates, game length, metrics")


def args_compare(p: argparse.ArgumentParser) -> None:
    _ruleset(p, "ruleset_a", "RULESET_A")
    _ruleset(p, "ruleset_b", "RULESET_B")
    p.add_argument("--games", type=_positive_int, metavar="N", required=True, help="games per ruleset")
    p.add_argument("--seed", type=_seed, metavar="S", default=1,
                   help="seed of the first game; game i of A and game i of B both use S+i (default 1)")
    p.add_argument("--players", type=_positive_int, metavar="N", help="number of players (default: A's default)")
    p.add_argument("--workers", type=_positive_int, metavar="W",
                   help="worker processes (default and at most: the number of cores, and no more than the games); "
                        "results do not depend on it")
    _cluster_args(p)
    p.add_argument("--agent", action="append", metavar="KIND", default=[],
                   help="the bot for the next seat, in both runs (as for simulate); default random")
    p.add_argument("--agent-a", action="append", metavar="KIND", default=[], dest="agent_a",
                   help="the bot for the next seat in A only (replaces --agent for A)")
    p.add_argument("--agent-b", action="append", metavar="KIND", default=[], dest="agent_b",
                   help="the bot for the next seat in B only (replaces --agent for B)")
    p.add_argument("--set", action="append", metavar="NAME=VALUE", default=[],
                   help="change a parameter or option in both rulesets; repeatable")
    p.add_argument("--json", metavar="FILE", help="also write the comparison as JSON")


def args_diff(p: argparse.ArgumentParser) -> None:
    _ruleset(p, "ruleset_a", "RULESET_A")
    _ruleset(p, "ruleset_b", "RULESET_B")
    p.add_argument("--format", choices=("text", "json", "dot", "svg"), default="text",
                   help="text (default): the differences in words, by section; json: the same as data; dot or "
                        "svg: the flowcharts of the sequences that differ (added green, removed red and dashed, "
                        "changed orange)")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="write here instead of the terminal ('-' too means the terminal; svg needs a file)")


def args_schema(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", metavar="FILE", default="-",
                   help="write the schema here ('-', the default: standard output)")


def args_studio(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", nargs="?", metavar="FILE-OR-FOLDER", default=None,
                   help="the folder whose rulesets are served (default: the current folder), or a ruleset file "
                        "to open (its folder is served)")
    p.add_argument("--port", type=int, default=0, metavar="N", help="the port (default: a free one)")
    p.add_argument("--host", default="127.0.0.1", metavar="H",
                   help="the address to listen on (default 127.0.0.1: this machine only; anything else is warned)")
    p.add_argument("--open", action="store_true", help="open the page in the browser")
    p.add_argument("--play", metavar="RULESET", default=None,
                   help="start a game of RULESET at once and print each person's seat link (docs/studio.md, Play)")
    p.add_argument("--agent", action="append", default=None, metavar="KIND",
                   help="with --play: who sits in each seat, in order: human (a person: a seat link), random, first "
                        "or greedy; the last is repeated (default: every seat a person)")
    p.add_argument("--seed", type=_seed, default=1, metavar="S", help="with --play: the game's seed (default 1)")
    p.add_argument("--set", action="append", default=None, metavar="NAME=VALUE",
                   help="with --play: a parameter or option of the ruleset")
    p.add_argument("--pace", type=_pace, default=0.6, metavar="SECONDS",
                   help="seconds between the bots' moves in a game played in the browser (default 0.6)")
    _cluster_args(p)  # where the page's simulations play (as for simulate)


def args_lsp(p: argparse.ArgumentParser) -> None:
    p.add_argument("--stdio", action="store_true", help="accepted for editors that pass it; stdio is the only transport")


