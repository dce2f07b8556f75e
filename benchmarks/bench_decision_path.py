"""What one decision a bot answers costs, piece by piece: machine instructions per asking, under cachegrind.

    python benchmarks/bench_decision_path.py [--askings 50000]

Pig's yes/no ('roll again?') is asked again and again at one position of a paused game (seed 7, after 60 warm-up
games), its seat's RandomAgent answering in the running code as `Game.play` has it (its pick, without a Decision:
machine/questions.decide); each piece of the path is run
alone the same number of times, and the hand-written baseline's draw (benchmarks/baseline_common.agent_rng) too.
For each, two fresh processes (no askings, then N) under ``valgrind --tool=cachegrind --cache-sim=no``; the figure
is their difference over N, less the bare loop's. The game's step and decision counts are set back before each
asking, so every asking is the same (the same decision number, the same draw). `whole asking` is the path from
the generated step code's call (`_choose`: runtime/machine/decision_steps.chosen) to the answer bound; `... with a
bot that draws nothing` answers True at once (the path without the agent's draw).

The figures say where a decision's cost lies (docs/performance.md, s13-decide); they are not a game's instructions
(benchmarks/bench_instructions.py).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

PIECES = {
    "bare loop": "pass",
    "whole asking (_choose -> bound)": "f.pc = pc; chosen(g, f, ins, pc)",
    "... with a bot that draws nothing": "f.pc = pc; chosen(g2, f2, ins2, pc2)",
    "h_choose": "f.pc = pc; h_choose(g, f, ins)",
    "questions.decide": "decide(g, spec, step)",
    "who decides (its expression)": "plan.who(g)",
    "Decision(...)": "Decision(0, 'yesno', None, None, 0, 0, False, form, 5, None, 2, False, g)",
    "answers.by_bot (bot drawing nothing)": "by_bot(g2, d)",
    "Decision.take": "d.take(True)",
    "decisions.usual (the check decide writes out)": "usual('yesno', 2, None, None, True)",
    "answers.taken": "taken(g, d, True)",
    "RandomAgent.choose (the draw)": "choose(d, None)",
    "RandomAgent.pick (the draw, decide's)": "pick('yesno', 2, 5)",
    "baseline's draw (agent_rng(...).below(2))": "agent_rng(base, 5).below(2) == 0",
}

CHILD = r"""
import sys
sys.path.insert(0, sys.argv[1])
from bench_games import play_seeds
from baseline_common import agent_rng
from rulecraft.agents.base import RandomAgent
from rulecraft.loader import load_ruleset
from rulecraft.runtime.decisions import Decision, usual
from rulecraft.runtime.game import Game
from rulecraft.runtime.machine.answers import Bots, by_bot, pick_of, taken
from rulecraft.runtime.machine.decision_steps import chosen, h_choose
from rulecraft.runtime.machine.plans import _COMPILED
from rulecraft.runtime.machine.questions import decide
rs = load_ruleset("pig").ruleset
play_seeds(rs, range(60), 2)
def paused(choose, pick=None):
    g = Game(rs, 2, 7, story=False)
    f = g.frames[-1]
    ins = g.programs[f.seq].code[f.pc]
    g.bots = Bots([choose, choose], [False, False], None, [pick, pick])
    g.pending = None
    return g, f, ins, f.pc
bot = RandomAgent(1, 7)
choose, pick = bot.choose, pick_of(bot)
g, f, ins, pc = paused(choose, pick)
nothing = lambda kind, count, number: True
g2, f2, ins2, pc2 = paused(lambda d, view: True, nothing)
spec, step = ins.arg, ins.step
plan = _COMPILED[id(spec)]
form = plan.form
d = Decision(0, "yesno", None, None, 0, 0, False, form, 5, None, 2, False, g)
base = 12345
exec("def run(n):\n    for _ in range(n):\n        g.steps = g2.steps = 100; g.decisions = g2.decisions = 5\n        "
     + sys.argv[2] + "\n", globals())
run(int(sys.argv[3]))
"""

IREFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def instructions(here: str, stmt: str, n: int) -> int:
    env = dict(os.environ, PYTHONHASHSEED="0", RULECRAFT_CACHE="")
    done = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                           sys.executable, "-c", CHILD, here, stmt, str(n)], env=env, capture_output=True, text=True)
    m = IREFS.search(done.stderr)
    if done.returncode != 0 or not m:
        sys.exit(f"the child failed ({stmt}):\n{done.stderr[-2000:]}")
    return int(m.group(1).replace(",", ""))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--askings", type=int, default=50_000)
    n = ap.parse_args(argv).askings
    here = os.path.dirname(os.path.abspath(__file__))
    per = {name: (instructions(here, stmt, n) - instructions(here, stmt, 0)) / n for name, stmt in PIECES.items()}
    loop = per.pop("bare loop")
    print(f"instructions per asking (cachegrind, {n:,} askings, the bare loop's {loop:,.0f} taken off)")
    print("| piece | instructions |")
    print("| --- | ---: |")
    for name, value in per.items():
        print(f"| {name} | {value - loop:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
