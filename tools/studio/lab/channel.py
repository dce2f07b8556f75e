"""The studio's simulation websocket (`/simulate`): one page asks for a run of games, sees its progress, may
cancel it, and gets the text report, the plots and the comparison; then the chart shaded by coverage.

Each run is a process of its own (the module `rulecraft.tools.studio.lab.work`, started by START_WORK), which plays the games on
local worker processes or on the Dask cluster the studio was started with (`--cluster`); the server only
passes its lines on, so the page and its editor stay responsive. What a page may ask is bounded: at most
MAX_GAMES games a run (each side of a comparison), bots of the built-in kinds only (never a script or a
Python class of the stranger's choosing), one run at a time per page, MAX_RUNS at a time in the studio,
and a page that goes away has its run cancelled. The messages are in docs/studio.md.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sys
from dataclasses import dataclass, field
from typing import Any, Optional

from starlette.websockets import WebSocket, WebSocketDisconnect

from rulecraft.tools.studio.folder import Refused, bundled_path
from rulecraft.tools.studio.lab.kept import Kept

log = logging.getLogger("rulecraft.studio")
MAX_GAMES = 5000  # games of one run (of each side of a comparison)
# `python -m MODULE` (and `-c`) put the current folder first on sys.path, before the standard library: the studio often
# runs in the folder it serves, which may have come from a stranger, and a `json.py` there was imported by every
# simulation's process (its code ran at the first press of Simulate). The folder is taken off before any import.
START_WORK = ("import os, sys; sys.path[:] = [p for p in sys.path if p and os.path.abspath(p) != os.getcwd()]; "
              "from rulecraft.tools.studio.lab.work import main; sys.exit(main(int(sys.argv[1])))")
MAX_RUNS = 2  # runs at once in the whole studio (each may use every core)
MAX_MESSAGE = 64 * 1024  # bytes of a message from the page
MAX_SETS = 64  # NAME=VALUE options of one side
MAX_LINE = 64 * 1024 * 1024  # bytes of one line from the run's process (the result, with its plots)
AGENTS = ("random", "first", "greedy")  # the bots a page may seat
MAX_VALUES = 8  # values of a sweep (each played N games; at most 2 * MAX_GAMES games in all, as a comparison)
STOP_WAIT = 5.0  # seconds a cancelled run is given to end before it is killed


class Asked(ValueError):
    """A request the page may not make, or made wrong; the message says why, for a person. `at`: where the ruleset's
    first error is written ({path, line, col}, a file of the folder), for the page's Go to."""

    def __init__(self, message: str, at: dict | None = None):
        super().__init__(message)
        self.at = at


@dataclass
class Lab:
    """The studio's simulations: where they run, and the processes running now."""
    cluster: Optional[str] = None
    cluster_timeout: Optional[float] = None
    running: set = field(default_factory=set)
    starting: int = 0
    kept: Kept = field(default_factory=Kept)  # the last results, for a page reloaded (`resume`)

    def stop_all(self) -> None:
        for proc in list(self.running):
            _signal(proc, signal.SIGTERM)


def _signal(proc, signum: int) -> None:
    try:
        proc.send_signal(signum)
    except ProcessLookupError:
        pass


def _int(value: Any, name: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise Asked(f"'{name}' is a whole number from {low:,} to {high:,}")
    return value


def _side(studio, given: Any, fallback: Optional[dict] = None) -> dict:
    """One side of a run: the ruleset (a file of the folder, or bundled:NAME), its bots and its options."""
    from rulecraft.tools.loading import parse_sets

    if not isinstance(given, dict):
        raise Asked("a side of the run is an object {ruleset, agents, set}")
    ref = given.get("ruleset") or (fallback or {}).get("ref")
    if not isinstance(ref, str) or not ref:
        raise Asked("'ruleset' names a file of the folder or bundled:NAME")
    path = bundled_path(ref[8:]) if ref.startswith("bundled:") else studio.folder.read(ref)[0]
    agents = given.get("agents") or ["random"]
    if not isinstance(agents, list) or not 1 <= len(agents) <= 16 or not all(a in AGENTS for a in agents):
        raise Asked(f"'agents' lists the bot of each seat, each one of {', '.join(AGENTS)}")
    sets = given.get("set") or []
    if not isinstance(sets, list) or len(sets) > MAX_SETS or not all(isinstance(s, str) for s in sets):
        raise Asked(f"'set' lists at most {MAX_SETS} options as NAME=VALUE")
    try:
        overrides = parse_sets([s for s in sets if s.strip()])
    except ValueError as exc:
        raise Asked(str(exc).replace("--set ", "")) from None
    name = ref[8:] if ref.startswith("bundled:") else ref
    shown = " ".join([name, *(f"{k}={v}" for k, v in overrides.items())])
    return {"ref": ref, "name": shown[:200], "ruleset": path, "agents": agents, "overrides": overrides}


def request_of(studio, msg: dict, lab: Lab) -> dict:
    """The run's request for the work process, from the page's `start` message; Asked or Refused when not."""
    from rulecraft.runtime.rng import SEED_END, SEED_MIN
    from rulecraft.tools.simulate.executors import cores

    games = _int(msg.get("games"), "games", 1, MAX_GAMES)
    seed = _int(msg.get("seed", 1), "seed", SEED_MIN, SEED_END - games)  # as `simulate --seed`: every game's seed
    # a log can hold (the last is SEED + GAMES - 1)
    players = msg.get("players")
    if players is not None:
        players = _int(players, "players", 1, 64)
    workers = msg.get("workers")
    if workers is not None:
        workers = _int(workers, "workers", 1, cores())
    runs = [_side(studio, msg)]
    if msg.get("compare") is not None:
        runs.append(_side(studio, msg["compare"], runs[0]))
    sweep = None
    if msg.get("sweep") is not None:
        if len(runs) > 1:
            raise Asked("a sweep plays the open ruleset alone: compare with nothing")
        sweep, runs = _sweep(msg["sweep"], runs[0], games)
    return {"runs": [{k: r[k] for k in ("name", "ruleset", "agents", "overrides")} for r in runs],
            "games": games, "seed": seed, "players": players, "workers": workers, "sweep": sweep,
            "cluster": lab.cluster, "cluster_timeout": lab.cluster_timeout}


def _sweep(given: Any, side: dict, games: int) -> tuple[dict, list[dict]]:
    """A sweep of one setting ({name, values}): the side played at each value, its other options as they are."""
    from rulecraft.tools.loading import parse_sets

    name, values = (given.get("name"), given.get("values")) if isinstance(given, dict) else (None, None)
    if not isinstance(name, str) or not isinstance(values, list) or not 2 <= len(values) <= MAX_VALUES or \
            not all(isinstance(v, (int, float, str)) and not isinstance(v, bool) for v in values):
        raise Asked(f"a sweep is {{name, values}}: one setting and 2 to {MAX_VALUES} values")
    if games * len(values) > 2 * MAX_GAMES:
        raise Asked(f"a sweep plays at most {2 * MAX_GAMES:,} games in all: {len(values)} values of {games:,} games "
                    f"are {games * len(values):,}")
    try:
        sets = [parse_sets([f"{name}={v}"]) for v in values]
    except ValueError as exc:
        raise Asked(str(exc).replace("--set ", "")) from None
    shown = [str(v) for v in values]
    if len(set(shown)) != len(shown):
        raise Asked("a sweep's values are different values")
    base = {k: v for k, v in side["overrides"].items() if k != name}
    ref = side["ref"][8:] if side["ref"].startswith("bundled:") else side["ref"]
    runs = [{**side, "name": " ".join([ref, *(f"{k}={x}" for k, x in {**base, **one}.items())])[:200],
             "overrides": {**base, **one}} for one in sets]
    return {"name": name, "values": shown}, runs


def settings_problem(path: str, overrides: dict, players: int | None = None, name: str = "",
                     root: str = "") -> tuple[str, dict | None]:
    """What is wrong with a side's options for its ruleset, in the words `rulecraft simulate --set` prints
    ('E316: --set tie_rule=x: not one of the choices (choices: a, b)'), with the ruleset ('NAME cannot be played:
    ...') or with the number of players asked, or '' when they all fit; and where the ruleset's first error is
    written when that is a file of the folder `root` ({path, line, col}: the page's Go to), named by its path in the
    folder (it was the absolute path)."""
    from rulecraft.loader import load_ruleset

    loaded = load_ruleset(path, overrides=overrides)
    for d in loaded.diagnostics:
        if d.code == "E316":
            return f"{d.code}: {d.message}" + (f" ({d.hint})" if d.hint else ""), None
    first = next((d for d in loaded.diagnostics if d.is_error), None)
    if first is not None or loaded.ruleset is None:
        span, at = first.span if first is not None else None, None
        where = f"{span}: " if span is not None else ""
        real = os.path.realpath(span.file) if span is not None and span.file else ""
        if root and real and os.path.commonpath([real, os.path.realpath(root)]) == os.path.realpath(root):
            at = {"path": os.path.relpath(real, os.path.realpath(root)).replace(os.sep, "/"), "line": span.line,
                  "col": span.col}
            where = f"{at['path']}:{span.line}:{span.col}: "
        said = f"{name} cannot be played" + (f": {where}{first.code}: {first.message}" if first else "")
        return said + (f" (hint: {first.hint})" if first is not None and first.hint else ""), at
    rs = loaded.ruleset
    if players is not None and not rs.players.min <= players <= rs.players.max:
        return f"{name} is for {rs.players.min} to {rs.players.max} players, not {players}", None
    return "", None


def coverage_chart(path: str, overrides: dict, counts: dict, games: int, sequence: str) -> str:
    """The chart of one sequence as `rulecraft render --coverage --detail full` draws it: each box shaded by how often
    it ran, the steps never reached marked; every step, as the Chart tab draws it (the steps never reached are
    counted over every step: a bookkeeping one left out of the chart was counted and not seen). No legend: the page
    says what the shades mean (the legend, wider than a short sequence's chart, shrank its boxes past reading)."""
    from rulecraft.loader import load_ruleset
    from rulecraft.tools.chart.coverage import Coverage
    from rulecraft.tools.chart.dotrun import run_dot
    from rulecraft.tools.chart.flowchart import ChartOptions, chart_dot
    from rulecraft.tools.studio.views import NotDrawn, _strip_prolog

    loaded = load_ruleset(path, overrides=overrides)
    if not loaded.ok:
        raise NotDrawn("the ruleset has errors now")
    rs = loaded.ruleset
    if sequence not in rs.sequences:
        raise NotDrawn(f"the ruleset has no sequence '{sequence[:100]}'")
    cov = Coverage(counts, games, rs.name, max(counts.values(), default=0))
    return _strip_prolog(run_dot(chart_dot(rs, loaded.graph, sequence, ChartOptions(coverage=cov)), "svg").decode("utf-8"))


class Channel:
    """One page's simulation websocket: at most one run at a time, cancelled when the page goes."""

    def __init__(self, ws: WebSocket, studio, lab: Lab):
        self.ws, self.studio, self.lab = ws, studio, lab
        self.proc: Optional[asyncio.subprocess.Process] = None
        self.relay: Optional[asyncio.Task] = None
        self.done: list = []  # (path, overrides, coverage counts, games) of each side of the last run
        self.swept: Optional[dict] = None  # the last sweep's rows ({name, values, ruleset, rows}), to plot
        self.sending = asyncio.Lock()
        self.tasks: set = set()
        self.stopping: Optional[asyncio.subprocess.Process] = None

    async def send(self, message: dict) -> None:
        async with self.sending:
            await self.ws.send_text(json.dumps(message))

    async def run(self) -> None:
        await self.ws.accept()
        try:
            while True:
                got = await self.ws.receive()
                if got["type"] == "websocket.disconnect":
                    break
                data = got.get("text") if got.get("text") is not None else (got.get("bytes") or b"").decode(
                    "utf-8", "replace")
                await self.one(data)
        except WebSocketDisconnect:
            pass
        finally:
            await self.cancel(wait=True)

    async def one(self, data: str) -> None:
        if len(data.encode("utf-8", "surrogatepass")) > MAX_MESSAGE:
            await self.send({"type": "error", "message": f"a message over {MAX_MESSAGE:,} bytes"})
            return
        try:
            msg = json.loads(data)
        except (ValueError, RecursionError):
            msg = None
        kind = msg.get("type") if isinstance(msg, dict) else None
        try:
            if kind == "start":
                await self.start(msg)
            elif kind == "cancel":
                await self.cancel()
            elif kind == "chart":
                await self.chart(msg)
            elif kind == "sweep":
                await self.sweep_plot(msg)
            elif kind == "resume" and self.proc is None:  # a page reloaded: its last run's result again
                if (kept := self.lab.kept.get(msg.get("kept"))) is None:
                    raise Asked("the last run's result is not kept any more (the studio keeps the last few, in "
                                "memory, until it stops): press Run to play it again")
                result, self.done, self.swept = kept
                await self.send({**result, "resumed": True})
            else:
                raise Asked("a message is {type: start | cancel | chart | sweep | resume, ...}")
        except (Asked, Refused) as exc:
            at = {"at": exc.at} if isinstance(exc, Asked) and exc.at else {}
            await self.send({"type": "error", "message": exc.message if isinstance(exc, Refused) else str(exc), **at})
        except (WebSocketDisconnect, asyncio.CancelledError):
            raise
        except Exception:  # noqa: BLE001 - the studio's own fault: said, logged, and the page's socket kept
            log.exception("a simulation request failed")
            await self.send({"type": "error", "message": "the studio failed to do this (a fault of the studio's, not "
                             "of the ruleset): its terminal has the details; the page goes on"})

    async def start(self, msg: dict) -> None:
        if self.proc is not None:
            raise Asked("a run is going on: cancel it first (one run at a time per page)")
        request = request_of(self.studio, msg, self.lab)
        loop = asyncio.get_running_loop()
        for i, run in enumerate(request["runs"]):  # options, players or a ruleset that will not do: before 'started'
            problem, at = await loop.run_in_executor(self.studio.drawing, settings_problem, run["ruleset"],
                                                     run["overrides"], request.get("players"), run["name"],
                                                     self.studio.folder.root)
            if problem:
                raise Asked(("compare with: " if i else "") + problem[:1000], at)
        if len(self.lab.running) + self.lab.starting >= MAX_RUNS:
            raise Asked(f"{MAX_RUNS} runs are going on in this studio: wait for one to end")
        self.lab.starting += 1  # counted while the process starts, so that two pages cannot both pass the check
        try:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable, "-c", START_WORK, str(os.getpid()), stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, limit=MAX_LINE)
        finally:
            self.lab.starting -= 1
        self.lab.running.add(self.proc)
        self.proc.stdin.write((json.dumps(request) + "\n").encode())
        self.proc.stdin.close()
        self.done, self.swept = [], None
        await self.send({"type": "started", "games": request["games"], "runs": [r["name"] for r in request["runs"]]})
        self.relay = asyncio.create_task(self._relay(self.proc, request))

    async def _relay(self, proc, request: dict) -> None:
        """The run's lines to the page, as they come; the result kept for the coverage charts. The last line
        (result, cancelled or error) goes once the process has ended, so the page may start again at once."""
        last = None
        try:
            while True:
                line = await proc.stdout.readline()
                if not line:
                    break
                msg = json.loads(line)
                if msg.get("type") in ("result", "cancelled", "error"):
                    last = msg
                    break
                await self.send(msg)
        except (ValueError, asyncio.LimitOverrunError) as exc:
            log.warning("a simulation's output was not read (%s)", type(exc).__name__)
        except Exception:  # noqa: BLE001 - a send to a page that went (closed socket): run() cancels the run
            return
        finally:
            code = await proc.wait()
            self.lab.running.discard(proc)
            if self.proc is proc:
                self.proc = None
        if last is not None and last["type"] == "result" and last.get("sweep"):
            self.done, self.swept = [], last["sweep"]  # (its plots are drawn when asked: `sweep`)
        elif last is not None and last["type"] == "result":
            self.done = [(r["ruleset"], r["overrides"], side["coverage"].pop("counts"), side["done"])
                         for r, side in zip(request["runs"], last["runs"])]
        if last is not None and last["type"] == "result":
            last["kept"] = self.lab.kept.put(last, self.done, self.swept)
        if last is None and self.stopping is proc:  # cancelled before it could say so (still starting)
            last = {"type": "cancelled", "done": 0, "total": request["games"]}
        await self._quietly(last or {"type": "error", "message": f"the simulation stopped (exit code {code})"})

    async def _quietly(self, message: dict) -> None:
        try:
            await self.send(message)
        except Exception:  # noqa: BLE001 - the page went (anyio's ClosedResourceError, a disconnect): nobody to tell
            pass

    async def cancel(self, wait: bool = False) -> None:
        """SIGTERM to the run's process (it stops its workers and says how far it got); SIGKILL if it has not
        ended after STOP_WAIT seconds."""
        proc, relay = self.proc, self.relay
        if proc is None:
            return
        if self.stopping is not proc:  # once
            self.stopping = proc
            _signal(proc, signal.SIGTERM)

        async def reap() -> None:
            try:
                await asyncio.wait_for(asyncio.shield(proc.wait()), STOP_WAIT)
            except asyncio.TimeoutError:
                _signal(proc, signal.SIGKILL)
                await proc.wait()
            self.lab.running.discard(proc)

        if wait:
            await reap()
            if relay is not None:
                relay.cancel()
        else:
            task = asyncio.create_task(reap())
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def chart(self, msg: dict) -> None:
        from rulecraft.tools.studio.views import NotDrawn

        which, sequence = msg.get("run", 0), msg.get("sequence")
        if not self.done or not isinstance(which, int) or not 0 <= which < len(self.done) or not isinstance(sequence, str):
            raise Asked("a chart is of a run that ended: {type: chart, run: 0 or 1, sequence}")
        path, overrides, counts, games = self.done[which]
        loop = asyncio.get_running_loop()
        try:
            svg = await loop.run_in_executor(self.studio.drawing, coverage_chart, path, overrides, counts, games,
                                             sequence)
        except NotDrawn as exc:
            raise Asked(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - Graphviz failing on one chart: this request's error
            raise Asked(f"the chart was not drawn: {str(exc)[:300]}") from None
        await self.send({"type": "chart", "run": which, "sequence": sequence, "svg": svg})

    async def sweep_plot(self, msg: dict) -> None:
        """The plot of one row of the last sweep against the setting's values (tools/simulate/sweep.py)."""
        from rulecraft.tools.simulate.sweep import sweep_svg

        row, swept = msg.get("row"), self.swept
        if swept is None or not isinstance(row, int) or isinstance(row, bool) or not 0 <= row < len(swept["rows"]):
            raise Asked("a sweep's plot is of a row of the sweep that ended: {type: sweep, row: N}")
        loop = asyncio.get_running_loop()
        svg = await loop.run_in_executor(self.studio.drawing, sweep_svg, swept["ruleset"], swept["name"],
                                         swept["values"], swept["rows"][row])
        await self.send({"type": "sweep", "row": row, "svg": svg})
