"""Session 17, second round: hostile input of kinds not tried before (docs/security.md, section 17).
Each test failed before its fix."""

from __future__ import annotations

import subprocess
import sys
import textwrap

# A worker killed while it wrote a result: the start of a message (its length says 1 MiB) is in the pool's result
# pipe and the rest never comes. Written by hand in the worker, so the kill lands mid-message every time.
_HALF_A_RESULT = textwrap.dedent("""
    import gc, multiprocessing.queues, os, struct, sys, time
    from rulecraft.tools.simulate.executors import kill_pool, local_pool

    def half_a_result(flag):
        q = next(o for o in gc.get_objects() if isinstance(o, multiprocessing.queues.SimpleQueue))
        os.write(q._writer.fileno(), struct.pack("!i", 1 << 20) + b"x" * 10)
        open(flag, "w").close()
        time.sleep(600)

    if __name__ == "__main__":
        pool = local_pool(1)
        pool.submit(half_a_result, sys.argv[1])
        while not os.path.exists(sys.argv[1]):
            time.sleep(0.05)
        kill_pool(pool, grace=1.0)
        print("killed", flush=True)
""")


def test_a_pool_killed_while_a_worker_wrote_a_result_lets_the_process_end(tmp_path):
    script = tmp_path / "half.py"
    script.write_text(_HALF_A_RESULT)
    proc = subprocess.Popen([sys.executable, str(script), str(tmp_path / "flag")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=120)  # a generous bound: it ends in well under a second
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError("the process never ended: the pool's manager thread waits for the rest of a message") from None
    assert proc.returncode == 0, err
    assert out == "killed\n"


def _rulecraft_with_stderr_closed(*args: str) -> subprocess.CompletedProcess:
    code = f"import sys; from rulecraft.tools.cli.main import main; sys.argv = ['rulecraft', *{list(args)!r}]; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, timeout=300,
                          preexec_fn=lambda: __import__("os").close(2))


def test_a_closed_standard_error_is_no_internal_error_and_says_nothing_on_standard_output():
    done = _rulecraft_with_stderr_closed("simulate", "pig", "--games", "20", "--workers", "1")
    assert done.returncode == 0, done.stdout
    assert "internal error" not in done.stdout and done.stdout.startswith("pig: 20 games")
    done = _rulecraft_with_stderr_closed("simulate", "pig", "--games", "2", "--json", "/no/such/folder/x.json")
    assert done.returncode == 1
    assert done.stdout == ""  # its error line went to standard output, where a reader takes the data


class _TerminalGone:
    """A terminal closed under a running command: every write fails with EIO."""

    def __init__(self) -> None:
        self.writes = 0

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.writes += 1
        raise OSError(5, "Input/output error")

    def flush(self) -> None:
        raise OSError(5, "Input/output error")


def test_a_progress_bar_that_cannot_be_written_stops_and_the_games_go_on():
    from rulecraft.tools.simulate.runs import progress_printer, simulate

    terminal = _TerminalGone()
    summary = simulate("pig", 40, workers=2, progress=progress_printer(terminal), keep="none")
    assert summary.tally.games == 40
    assert terminal.writes == 1


def _long_save(path, decisions: int) -> int:
    """A save of pig promising `decisions` decisions (each a line), whatever its state: only its reading is measured."""
    import json

    head = {"type": "save", "format": 2, "rulecraft": "0", "ruleset": "pig", "name": "pig", "fingerprint": "0",
            "players": ["P1", "P2"], "seed": 1, "overrides": {}, "agents": ["random", "random"], "decisions": decisions}
    lines = [json.dumps(head)] + [f'{{"type":"decision","n":{i},"player":{i % 2},"choice":true}}'
                                  for i in range(1, decisions + 1)]
    lines.append(json.dumps({"type": "state", "format": 1, "hash": "0", "state": {"format": 1}}))
    path.write_text("\n".join(lines) + "\n")
    return path.stat().st_size


def test_a_long_save_is_read_without_holding_its_lines_as_texts(tmp_path):
    import tracemalloc

    from rulecraft.runtime.savegame import read_save

    size = _long_save(tmp_path / "long.save", 40_000)
    tracemalloc.start()
    try:
        saved = read_save(str(tmp_path / "long.save"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(saved.decisions) == 40_000 and saved.decision_lines[-1] == 40_001 and saved.state_line == 40_002
    # the bytes once and the decisions: 2.4 times the file (5.7 times before: the text, a list of every line, ...)
    assert peak < 3.5 * size, (peak, size)


class _EditsTheRulesetFirst:
    """An executor (threads) that has the ruleset's file edited just before its first chunk runs, as a designer who
    saves while a simulation of the file runs."""

    def __init__(self, path, new_text: str) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.pool, self.path, self.new_text, self.edited = ThreadPoolExecutor(2), path, new_text, False

    def submit(self, fn, *args):
        if not self.edited:
            self.path.write_text(self.new_text)
            self.edited = True
        return self.pool.submit(fn, *args)


def test_a_ruleset_edited_or_broken_while_its_games_run_is_refused_not_mixed(tmp_path):
    import pytest

    from rulecraft.bundled import resolve
    from rulecraft.tools.simulate.aggregate import RunRefused
    from rulecraft.tools.simulate.runs import simulate

    text = open(resolve("pig"), encoding="utf-8").read()
    for new_text, says in ((text.replace("default: 100, min: 10", "default: 20, min: 10"), "a run's games are all of"),
                           ("ruleset: [broken", "no longer loads")):
        path = tmp_path / "p.yaml"
        path.write_text(text)
        ex = _EditsTheRulesetFirst(path, new_text)
        try:  # before: the edit's games were counted with the others (exit 0), the broken file an internal error
            with pytest.raises(RunRefused, match=says):
                simulate(str(path), 40, executor=ex, workers=2, keep="none")
        finally:
            ex.pool.shutdown()
