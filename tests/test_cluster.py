"""`simulate --cluster` and `compare --cluster` on a Dask scheduler with two worker processes on 127.0.0.1:
the same results as a local run; clear messages when Dask is missing or the scheduler cannot be reached."""

from __future__ import annotations

import json
import socket
import sys

import pytest

from cli_fork import run_cli
from rulecraft.tools.simulate import cluster as dask_cluster
from rulecraft.tools.cli.main import main


def rulecraft(*args: str):
    """`rulecraft ARGS` in a child process, forked from one that has the command line and Dask imported
    (tests/cli_fork.py): each run here asked Python to start and import Dask again (over a second of CPU)."""
    return run_cli(list(args), timeout=600, preload=("distributed",))


@pytest.fixture(scope="module")
def scheduler():
    distributed = pytest.importorskip("distributed", reason="Dask distributed is not installed: "
                                                            "pip install 'rulecraft[cluster]' to run the cluster tests")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def test_simulate_on_a_cluster_gives_the_local_results(scheduler, tmp_path):
    runs = {}
    for name, where in (("local", ["--workers", "2"]), ("cluster", ["--cluster", scheduler])):
        files = ["--json", str(tmp_path / f"{name}.json"), "--csv", str(tmp_path / f"{name}.csv")]
        done = rulecraft("simulate", "pig", "--games", "80", "--seed", "4", *where, *files)
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
        data = json.loads((tmp_path / f"{name}.json").read_text())
        data.pop("seconds")
        runs[name] = (done.stdout.splitlines()[1:], data, (tmp_path / f"{name}.csv").read_text())
    assert runs["cluster"] == runs["local"]
    assert len(runs["local"][1]["results"]) == 80


def test_compare_on_a_cluster_gives_the_local_results(scheduler):
    args = ["compare", "pig", "pig", "--games", "40", "--agent-a", "first", "--agent-b", "random"]
    local = rulecraft(*args, "--workers", "2")
    remote = rulecraft(*args, "--cluster", scheduler)
    assert local.returncode == remote.returncode == 0, remote.stderr
    assert local.stdout.splitlines()[2:] == remote.stdout.splitlines()[2:]  # the first two lines give the seconds


def test_a_missing_dask_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now raises ImportError
    assert main(["simulate", "pig", "--games", "2", "--cluster", "tcp://127.0.0.1:8786"]) == 2
    err = capsys.readouterr().err
    assert "--cluster needs Dask distributed: pip install 'rulecraft[cluster]'" in err
    assert main(["compare", "pig", "pig", "--games", "2", "--cluster", "tcp://127.0.0.1:8786"]) == 2


def test_a_scheduler_that_cannot_be_reached_is_a_clear_error(monkeypatch, capsys):
    pytest.importorskip("distributed", reason="Dask distributed is not installed")
    monkeypatch.setattr(dask_cluster, "CLUSTER_TIMEOUT", 2.0)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["simulate", "pig", "--games", "2", "--cluster", f"tcp://127.0.0.1:{port}"]) == 1
    err = capsys.readouterr().err
    assert f"rulecraft simulate: cannot reach the Dask scheduler at tcp://127.0.0.1:{port}" in err
    assert "Traceback" not in err
    assert main(["simulate", "pig", "--games", "2", "--cluster", "no such address::"]) == 1
    assert "is not a Dask scheduler address" in capsys.readouterr().err


def test_ctrl_c_stops_a_cluster_run_and_leaves_the_cluster_usable(scheduler):
    import re
    import signal

    from ptysignal import signal_when_playing

    rc, text = signal_when_playing(["simulate", "pig", "--games", "1000000", "--cluster", scheduler], signal.SIGINT,
                                   b"/1000000 games")
    assert rc == 130, text[-500:]
    assert re.search(r"rulecraft simulate: interrupted \(Ctrl-C\) after [\d,]+ of 1,000,000 games", text), text[-500:]
    assert "Traceback" not in text
    again = rulecraft("simulate", "pig", "--games", "10", "--cluster", scheduler)
    assert again.returncode == 0, again.stderr


def test_what_dask_leaves_to_the_collector_during_a_run_is_not_printed(scheduler):
    """A Ctrl-C'd cluster run printed "Exception ignored in: <function Future.__del__ ...> Traceback ..." in a full run
    under load (session 18): a Dask future collected while the games were going on, before the quiet hook was put
    in at the run's end. The hook is in from the start of the run; shown in a fresh process, where no earlier run
    put it in."""
    import subprocess
    import textwrap

    script = textwrap.dedent(f"""
        from rulecraft.tools.simulate.cluster import cluster

        class Leftover:  # as Dask's Future: its __del__ fails as it is collected
            def __del__(self):
                raise RuntimeError("the loop is closed")

        Leftover.__del__.__module__ = "distributed.client"
        with cluster({scheduler!r}) as (ex, threads):
            Leftover()  # made and collected at once, while the run goes on
            print("ran on", threads)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "ran on" in done.stdout
    assert "Exception ignored" not in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_every_dask_logger_is_quiet_not_only_the_parents():
    """Dask's logging set-up gives `tornado.application` a level of its own (ERROR), so quieting `tornado` left
    its "Exception in callback ... Traceback" on screen when Ctrl-C closed a cluster run's connection (seen in
    CI, by timing: the Ctrl-C test above passes on most runs). Asserted on the levels, not on a lucky race."""
    import logging

    pytest.importorskip("distributed")
    dask_cluster._quiet_dask()
    loud = [name for name, logger in logging.root.manager.loggerDict.items()
            if isinstance(logger, logging.Logger) and name.split(".", 1)[0] in ("distributed", "asyncio", "tornado")
            and logger.getEffectiveLevel() < logging.CRITICAL]
    assert loud == []
    assert logging.getLogger("tornado.application").getEffectiveLevel() == logging.CRITICAL


# ----------------------------------------------------------------------------- what is not a Dask scheduler

@pytest.fixture
def not_dask():
    """Ports on 127.0.0.1 that are not a Dask scheduler: one that accepts and says nothing (as an HTTP server
    does until it gets a request), one that answers HTTP 400 at once, and one nobody listens on."""
    import threading

    servers, stop = [], threading.Event()

    def serve(greeting: bytes):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        s.settimeout(0.2)
        servers.append(s)
        held = []

        def loop():
            while not stop.is_set():
                try:
                    c, _ = s.accept()
                except OSError:
                    continue
                if greeting:
                    c.sendall(greeting)
                held.append(c)  # kept open: a peer that never hangs up
            for c in held:
                c.close()

        threading.Thread(target=loop, daemon=True).start()
        return s.getsockname()[1]

    silent = serve(b"")
    http400 = serve(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        refused = s.getsockname()[1]
    yield {"silent": f"tcp://127.0.0.1:{silent}", "http400": f"tcp://127.0.0.1:{http400}",
           "refused": f"tcp://127.0.0.1:{refused}", "bare": f"127.0.0.1:{silent}"}
    stop.set()
    for s in servers:
        s.close()


NOT_DASK = [  # (address or a key of not_dask, a piece of the one line said)
    ("silent", "did not answer as a Dask scheduler within 1 s"),
    ("bare", "did not answer as a Dask scheduler within 1 s"),
    ("http400", "speaks HTTP, but not as a Dask scheduler"),
    ("refused", "cannot reach the Dask scheduler at"),
    ("garbage://127.0.0.1:8786", "the scheme 'garbage' is not one Dask reaches a scheduler with"),
    ("tcp://:8786", "is not a Dask scheduler address"),
    ("http://127.0.0.1:8787/status", "an HTTP address"),
    ("tcp://127.0.0.1", "with a host and a port number"),
    ("   ", None),
]


@pytest.mark.parametrize("verb, address, said", [("simulate", *case) for case in NOT_DASK]
                         + [("compare", *case) for case in NOT_DASK if case[0] in ("silent", "http400")])
def test_an_address_that_is_not_a_dask_scheduler_is_one_line_and_exit_1(not_dask, address, said, verb):
    pytest.importorskip("distributed", reason="Dask distributed is not installed")
    rulesets = ["pig"] if verb == "simulate" else ["pig", "pig"]
    # 1 s where the timeout is what is said; 60 where an answer comes (the stand-in's thread answering an HTTP line
    # more than 1 s late, on a loaded machine, made it 'did not answer ... within 1 s')
    waited = "1" if said is not None and "within 1 s" in said else "60"
    done = rulecraft(verb, *rulesets, "--games", "10", "--cluster", not_dask.get(address, address),
                     "--cluster-timeout", waited)
    if said is None:  # nothing to connect to: a usage error
        assert done.returncode == 2 and "expected the address of a Dask scheduler" in done.stderr
        return
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0], done.stderr
    assert lines[0].startswith(f"rulecraft {verb}: ") and done.stdout == ""


def test_an_empty_cluster_address_is_a_usage_error():
    done = rulecraft("simulate", "pig", "--games", "10", "--cluster", "")
    assert done.returncode == 2 and "--cluster: expected the address of a Dask scheduler" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_cluster_timeout_is_an_option_with_a_default_of_about_ten_seconds():
    assert 5 <= dask_cluster.CLUSTER_TIMEOUT <= 12
    done = rulecraft("simulate", "pig", "--games", "10", "--cluster", "tcp://127.0.0.1:8786", "--cluster-timeout", "0")
    assert done.returncode == 2 and "--cluster-timeout" in done.stderr


def test_ctrl_c_while_connecting_stops_with_one_line(not_dask):
    import signal

    from ptysignal import signal_when_playing

    pytest.importorskip("distributed", reason="Dask distributed is not installed")
    rc, text = signal_when_playing(["simulate", "pig", "--games", "10", "--cluster", not_dask["silent"],
                                    "--cluster-timeout", "600"], signal.SIGINT, b"connecting to the Dask scheduler")
    assert rc == 130, text[-500:]
    assert "rulecraft simulate: interrupted (Ctrl-C); nothing written" in text and "Traceback" not in text


def test_a_cluster_run_that_hangs_after_ctrl_c_still_ends():
    """Twice in full test runs an interrupted --cluster run never exited (120 s), somewhere in Dask's clean-up. A run
    whose clean-up hangs after Ctrl-C now ends after its grace (here 0.5 s) with the line it would have printed and
    130 (`CtrlCWatch`): a stand-in run that swallows the KeyboardInterrupt and waits for ever, in a process of its own."""
    import subprocess
    import sys

    code = """
import os, signal, threading, time
from rulecraft.tools.cli.codes import CtrlCWatch
watch = CtrlCWatch("rulecraft simulate", grace=0.5)
with watch.armed(True):
    progress = watch.track(None)
    progress(12, 1000)
    inside = threading.Event()  # Ctrl-C once the run is inside its try (a timer could fire before it on a loaded machine)
    threading.Thread(target=lambda: inside.wait(60) and os.kill(os.getpid(), signal.SIGINT), daemon=True).start()
    try:
        inside.set()
        time.sleep(30)
    except KeyboardInterrupt:
        threading.Event().wait()  # a clean-up that never returns
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130, done.stderr
    assert "rulecraft simulate: interrupted (Ctrl-C) after 12 of 1,000 games; nothing written" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("signum, code", [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_during_the_import_of_dask_is_held_until_it_is_imported(tmp_path, signum, code):
    """CI (session 19): Ctrl-C sent as "connecting to the Dask scheduler" was printed landed inside `from distributed
    import Client` (then printed before the import) and came out as "internal error: TypeError: expected a message
    argument", exit 3. A stand-in Dask here signals its own process half-way through its import: the import runs to
    its end, and then the signal stops the run as anywhere else."""
    import os
    import subprocess

    fake = tmp_path / "distributed"
    fake.mkdir()
    (fake / "__init__.py").write_text(
        "import os, signal, pathlib\n"
        f"os.kill(os.getpid(), signal.{signum})\n"
        "sum(range(100000))  # the interpreter checks for signals here\n"
        "class Client:\n"
        "    pass\n"
        f"pathlib.Path({str(tmp_path / 'imported')!r}).write_text('whole')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "rulecraft.tools.cli.main", "simulate", "pig", "--games", "2",
                           "--cluster", "tcp://127.0.0.1:9"], capture_output=True, text=True, timeout=300, env=env)
    assert (tmp_path / "imported").read_text() == "whole"  # the import was not cut part-way
    assert done.returncode == code, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert "nothing written" in done.stderr
