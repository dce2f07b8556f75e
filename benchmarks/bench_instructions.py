"""Instructions per game under cachegrind: the figure that decides speed questions.

    python benchmarks/bench_instructions.py [--checkout DIR ...] [--games N] [--warmup 5] [CASE ...]

Wall-clock on a shared 2-core machine swings 10-40% within minutes; the number of machine
instructions a game executes does not move with the load. For each case and each checkout
this runs two fresh processes under ``valgrind --tool=cachegrind --cache-sim=no``:

- *base*: import the engine, load the ruleset, play the warm-up games (seeds 0..W-1);
- *full*: the same, then N more games (seeds 1000..1000+N-1),

and prints ``(I refs of full - I refs of base) / N``: the instructions of one game in a
warmed-up process (programs compiled, caches filled), loading and start-up subtracted.
Games are played as `rulecraft simulate` plays them: no story, one random agent per seat
(``RandomAgent(seat, seed)``) answering in the game (``Game.play``, where the checkout has it), exactly as
benchmarks/bench_games.py does.

Cases (names of bundled rulesets with a player count): ``dml`` (4 players),
``dune-bidding`` (6 players, the Bidding Phase), ``sealed-auction`` (its default players), ``pig`` (2 players).

``--checkout DIR`` runs the engine of another checkout of the repository with that
checkout's own virtual environment (``DIR/.venv/bin/python``) and its own bundled rulesets,
so versions compare; give it several times for a table with one column per checkout (the
first is the reference the ratios are taken against). Without it, this checkout is measured.
To measure the version before the constructs (fc58f60):

    git worktree add --detach ../rulecraft-old fc58f60
    (cd ../rulecraft-old && python3 -m venv .venv && .venv/bin/pip install -q -e .)
    python benchmarks/bench_instructions.py --checkout ../rulecraft-old --checkout .

`--validate dml` measures `rulecraft validate dml` instead: the instructions of one fresh process and the
median CPU time of `--runs` fresh processes (the parser cache and Python's compiled modules written first by an
untimed run, as an installed package has them; `--no-bytecode` compiles the checkout's own modules from source in
every process instead, as on a machine with PYTHONDONTWRITEBYTECODE=1). `--help-start` measures `rulecraft --help`.

Set-up: valgrind (``make bench-setup`` installs it with apt-get when it is missing).
Valgrind runs Python 30-50x slower: keep N small (the default 10 dml games take about a
minute per checkout). ``PYTHONHASHSEED=0`` is set in the child, so a run repeats exactly.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

CASES = {"dml": 4, "dune-bidding": 6, "sealed-auction": None, "pig": 2}

# The child: imports only what every version of the engine has had (load_ruleset, Game,
# RandomAgent), so it runs against old checkouts too (Game.play where the checkout has it). Prints
# "steps decisions games".
CHILD = r"""
import sys
from rulecraft.agents.base import RandomAgent
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
name, players, warmup, games = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
players = None if players == "-" else int(players)
loaded = load_ruleset(name)
if not loaded.ok:
    sys.exit("cannot load " + name)
rs = loaded.ruleset
def play(seeds):
    steps = decisions = 0
    for seed in seeds:
        if hasattr(Game, "play"):  # as `rulecraft simulate` plays (bench_games.play_seeds): the bots in the game
            g = Game(rs, players, seed, story=False, start=False)
            g.play([RandomAgent(p.seat, seed) for p in g.players], views=False)
        else:  # a checkout from before Game.play: its callers' loop
            g = Game(rs, players, seed, story=False)
            agents = [RandomAgent(p.seat, seed) for p in g.players]
            while not g.over:
                d = g.pending
                g.apply(agents[d.player].choose(d, None))
        steps += g.steps
        decisions += g.decisions
    return steps, decisions
play(range(warmup))
s, d = play(range(1000, 1000 + games))
print(s, d, games)
"""

IREFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def python_of(checkout: str) -> str:
    py = os.path.join(os.path.abspath(checkout), ".venv", "bin", "python")
    if not os.path.exists(py):
        sys.exit(f"{checkout}: no .venv/bin/python (create it: python3 -m venv .venv && .venv/bin/pip install -e .)")
    return py


def run(py: str, checkout: str, case: str, warmup: int, games: int) -> tuple[int, list[int]]:
    """(instructions, [steps, decisions, games]) of one child under cachegrind."""
    players = CASES[case]
    # no parser cache: the base run and the full run must build the parser alike (a cache written by the
    # first would make the second cheaper)
    env = dict(os.environ, PYTHONHASHSEED="0", RULECRAFT_CACHE="")
    env.pop("PYTHONPATH", None)
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no",
               f"--cachegrind-out-file={os.path.join(tmp, 'cg.out')}",
               py, "-c", CHILD, case, "-" if players is None else str(players), str(warmup), str(games)]
        done = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True)
    m = IREFS.search(done.stderr)
    if done.returncode != 0 or not m:
        sys.exit(f"{checkout} {case}: the child failed:\n{done.stderr[-2000:]}")
    return int(m.group(1).replace(",", "")), [int(x) for x in done.stdout.split()]


def measure(checkout: str, case: str, warmup: int, games: int) -> dict:
    py = python_of(checkout)
    base, _ = run(py, checkout, case, warmup, 0)
    full, (steps, decisions, n) = run(py, checkout, case, warmup, games)
    return {"per_game": (full - base) / n, "base": base, "steps": steps / n, "decisions": decisions / n}


def validate(checkout: str, name: str, runs: int, bytecode: bool = True, argv: tuple = ("validate",)) -> tuple[int, float]:
    """(instructions, median CPU seconds) of `rulecraft validate NAME` in a fresh process; the parser cache (where
    the checkout has one) is written by an untimed first run into a folder of its own, as a user's would be.

    Python's compiled modules are kept in a folder of their own too (PYTHONPYCACHEPREFIX), written by that first
    run, as an installed package has them. With `bytecode=False` nothing is written (PYTHONDONTWRITEBYTECODE=1):
    the standard library and the installed packages load as installed, and the checkout's own modules (an editable
    install with no __pycache__, as on the machines with that variable set) are compiled in every process."""
    script = os.path.join(os.path.abspath(checkout), ".venv", "bin", "rulecraft")
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PYTHONHASHSEED="0", RULECRAFT_CACHE=os.path.join(tmp, "cache"),
                   PYTHONPYCACHEPREFIX=os.path.join(tmp, "pycache"))
        env.pop("PYTHONPATH", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if not bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
            del env["PYTHONPYCACHEPREFIX"]
            if any("__pycache__" in dirs for folder in ("interpreter", "tools")
                   for _root, dirs, _files in os.walk(os.path.join(os.path.abspath(checkout), folder))):
                print(f"{checkout}: has __pycache__ folders, which --no-bytecode reads", file=sys.stderr)
        cmd = [script, *argv, name] if name else [script, *argv]
        subprocess.run(cmd, env=env, capture_output=True, cwd=tmp)
        cpu = []
        for _ in range(runs):
            before = os.times()
            subprocess.run(cmd, env=env, capture_output=True, cwd=tmp)
            after = os.times()
            cpu.append((after.children_user - before.children_user) + (after.children_system - before.children_system))
        done = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                               f"--cachegrind-out-file={os.path.join(tmp, 'cg.out')}", *cmd],
                              env=env, capture_output=True, text=True, cwd=tmp)
    m = IREFS.search(done.stderr)
    if not m:
        sys.exit(f"{checkout} validate: valgrind failed:\n{done.stderr[-2000:]}")
    cpu.sort()
    return int(m.group(1).replace(",", "")), cpu[len(cpu) // 2]


def commit_of(checkout: str) -> str:
    done = subprocess.run(["git", "-C", checkout, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", checkout, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return (done.stdout.strip() or checkout) + ("+" if dirty else "")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases", nargs="*", default=list(CASES), help=f"of {', '.join(CASES)}")
    ap.add_argument("--checkout", action="append", help="a checkout with its own .venv (repeatable)")
    ap.add_argument("--games", type=int, default=None, help="games measured (default: dml 10, others 40)")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--validate", metavar="RULESET", help="instead: `rulecraft validate RULESET` per fresh process "
                    "(instructions, and the median CPU time of --runs processes)")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--no-bytecode", action="store_true", help="with --validate: the checkout's modules compiled from "
                    "source in every process (PYTHONDONTWRITEBYTECODE=1, no __pycache__), as the earlier figures were")
    ap.add_argument("--help-start", action="store_true", help="instead: `rulecraft --help` per fresh process")
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("valgrind is missing: run `make bench-setup` (or apt-get install valgrind)", file=sys.stderr)
        return 2
    for c in args.cases:
        if c not in CASES:
            ap.error(f"unknown case {c!r} (one of {', '.join(CASES)})")
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    checkouts = args.checkout or [here]
    names = [commit_of(c) for c in checkouts]
    if args.validate or args.help_start:
        what, argv = (f"validate {args.validate}", ("validate",)) if args.validate else ("--help", ("--help",))
        print(f"`rulecraft {what}`, one fresh process: instructions (cachegrind); CPU s, median of {args.runs}; "
              + ("the checkout's modules compiled from source" if args.no_bytecode else "compiled modules cached"))
        print("| checkout | instructions | CPU s |")
        print("| --- | ---: | ---: |")
        ref = None
        for c, name in zip(checkouts, names):
            ins, cpu = validate(c, args.validate, args.runs, not args.no_bytecode, argv)
            ratio = "" if ref is None else f" ({ins / ref[0]:.2f}x)"
            cpu_ratio = "" if ref is None else f" ({cpu / ref[1]:.2f}x)"
            ref = ref or (ins, cpu)
            print(f"| {name} | {ins / 1e6:,.0f} M{ratio} | {cpu:.3f}{cpu_ratio} |", flush=True)
        return 0
    print(f"instructions per game (cachegrind, {args.warmup} warm-up games, PYTHONHASHSEED=0)")
    print("| case | " + " | ".join(names) + " |")
    print("| --- | " + " | ".join("---:" for _ in names) + " |")
    for case in args.cases:
        games = args.games or (10 if case == "dml" else 40)
        cells, ref = [], None
        for c in checkouts:
            r = measure(c, case, args.warmup, games)
            ratio = "" if ref is None else f" ({r['per_game'] / ref:.2f}x)"
            ref = r["per_game"] if ref is None else ref
            cells.append(f"{r['per_game'] / 1e6:.2f} M{ratio}; {r['steps']:.0f} steps, {r['decisions']:.0f} decisions")
        print(f"| {case}, {games} games | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
