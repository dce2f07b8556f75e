"""Stopping `simulate` and `compare` with worker processes: Ctrl-C, SIGTERM, and a parent killed outright.

Each test starts a real `rulecraft simulate ... --workers 2` (a million games: it never ends by
itself), waits until its two worker processes exist and ignore Ctrl-C (set up), signals it, and checks the exit code, the
line saying how far it got, and that no worker process is left. Waits are bounded and generous;
nothing here measures speed.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/stat") or os.name != "posix",
                                reason="finds worker processes through Linux's /proc")

WAIT = 90.0  # seconds: the longest any outcome below may take on a loaded machine


def _ppid_state(pid: int):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            text = fh.read()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return int(fields[1]), fields[0]


def descendants(pid: int) -> list[int]:
    """The living processes below `pid` (the workers; with a fork server, it and its workers)."""
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            got = _ppid_state(int(name))
            if got and got[1] != "Z":
                parents[int(name)] = got[0]
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parents.items() if pp == p]
        out += kids
        todo += kids
    return out


def alive(pid: int) -> bool:
    got = _ppid_state(pid)
    return got is not None and got[1] != "Z"  # a zombie has ended; only its parent has not read its status yet


def wait_until(check, seconds: float = WAIT) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.1)
    return check()


def ignores_ctrl_c(pid: int) -> bool:
    """Whether the process ignores SIGINT (/proc's SigIgn mask): a worker does once its initializer ran, and then
    takes the next chunk of games at once."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            mask = next(line for line in fh if line.startswith("SigIgn:")).split()[1]
    except (OSError, StopIteration):
        return False
    return bool(int(mask, 16) & (1 << (signal.SIGINT - 1)))


def start(*args: str) -> tuple[subprocess.Popen, list[int]]:
    """A run started, once its two workers exist and are set up (they ignore Ctrl-C): what a signal then meets is a
    run under way, whatever the machine's load. (A fixed wait of 2 s let them play first: seconds of CPU a test, and
    on a loaded machine still no promise that the workers were set up.)"""
    proc = subprocess.Popen([sys.executable, "-m", "rulecraft.tools.cli.main", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    workers: list[int] = []

    def two_workers() -> bool:
        workers[:] = descendants(proc.pid)
        return len(workers) >= 2 and all(ignores_ctrl_c(w) for w in workers) or proc.poll() is not None

    assert wait_until(two_workers), "the workers did not start"
    assert proc.poll() is None, proc.communicate()
    return proc, workers


def finish(proc: subprocess.Popen, workers: list[int]) -> tuple[int, str]:
    try:
        _out, err = proc.communicate(timeout=WAIT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("the run did not stop")
    assert wait_until(lambda: not any(alive(w) for w in workers)), f"workers left: {[w for w in workers if alive(w)]}"
    return proc.returncode, err


SIMULATE = ("simulate", "pig", "--games", "1000000", "--workers", "2", "--seed", "1")


@pytest.mark.parametrize("to, signum, code, cause", [
    ("parent", signal.SIGINT, 130, "interrupted (Ctrl-C)"),
    ("group", signal.SIGINT, 130, "interrupted (Ctrl-C)"),  # Ctrl-C at a terminal reaches every process of the group
    ("parent", signal.SIGTERM, 143, "stopped by SIGTERM"),
])
def test_simulate_stops_and_says_how_far_it_got(to, signum, code, cause):
    proc, workers = start(*SIMULATE)
    if to == "group":
        os.killpg(proc.pid, signum)
    else:
        os.kill(proc.pid, signum)
    rc, err = finish(proc, workers)
    assert rc == code, err
    m = re.search(r"rulecraft simulate: (.*) after ([\d,]+) of 1,000,000 games; nothing written", err)
    assert m, err
    assert m.group(1) == cause
    assert 0 <= int(m.group(2).replace(",", "")) < 1_000_000  # 0 when no chunk of 50 games had ended yet
    assert "Traceback" not in err


def test_compare_stops_on_sigterm():
    proc, workers = start("compare", "pig", "pig", "--games", "1000000", "--workers", "2")
    os.kill(proc.pid, signal.SIGTERM)
    rc, err = finish(proc, workers)
    assert rc == 143, err
    assert re.search(r"rulecraft compare: stopped by SIGTERM after [\d,]+ of 1,000,000 games; nothing written", err), err
    assert "Traceback" not in err


def test_workers_end_when_the_parent_is_killed():
    proc, workers = start(*SIMULATE)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=WAIT)
    assert proc.returncode == -signal.SIGKILL
    assert wait_until(lambda: not any(alive(w) for w in workers)), f"workers left: {[w for w in workers if alive(w)]}"


def test_one_process_run_stops_on_ctrl_c():
    """--workers 1 plays in the process itself; its progress bar (on a terminal) says when games are under way."""
    from ptysignal import signal_when_playing

    rc, text = signal_when_playing([*SIMULATE[:-4], "--workers", "1"], signal.SIGINT, b"/1000000 games", WAIT)
    assert rc == 130, text[-500:]
    assert re.search(r"\nrulecraft simulate: interrupted \(Ctrl-C\) after [\d,]+ of 1,000,000 games", text), text[-500:]
    assert "Traceback" not in text


# A worker started just before its parent is killed: the parent is gone before the worker's set-up runs. The worker
# must not take its new parent (init, or a subreaper) for the one to watch, or it waits for ever (CI saw a run whose
# killed parent's pipes stayed open past 90 s).
_INNER = ("import os, sys, time\n"
          "creator = int(sys.argv[1])\n"
          "while os.getppid() == creator:\n"
          "    time.sleep(0.05)  # set-up runs only once the parent is gone\n"
          "from rulecraft.tools.simulate.executors import worker_init\n"
          "worker_init(creator)\n"
          "time.sleep(600)\n")
_OUTER = ("import os, subprocess, sys, time\n"
          "inner = subprocess.Popen([sys.executable, '-c', sys.argv[1], str(os.getpid())])\n"
          "print(inner.pid, flush=True)\n"
          "time.sleep(600)\n")


def test_a_worker_whose_parent_died_before_its_set_up_ends():
    outer = subprocess.Popen([sys.executable, "-c", _OUTER, _INNER], stdout=subprocess.PIPE, text=True,
                             start_new_session=True)
    try:
        inner = int(outer.stdout.readline())
        os.kill(outer.pid, signal.SIGKILL)
        outer.wait(timeout=WAIT)
        assert wait_until(lambda: not alive(inner)), "the worker outlived its parent"
    finally:
        try:
            os.killpg(outer.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_worker_set_up_under_its_living_parent_stays():
    """The other side: worker_init with the right creator keeps the process (it is not ended by mistake)."""
    code = ("import os, sys\n"
            "from rulecraft.tools.simulate.executors import worker_init\n"
            "worker_init(os.getppid())\n"
            "print('set up', flush=True)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=WAIT)
    assert done.returncode == 0 and done.stdout == "set up\n", done.stderr
