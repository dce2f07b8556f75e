"""`simulate --cluster` and `compare --cluster` on a Dask scheduler with two worker processes on 127.0.0.1:
the same results as a local run; clear messages when Dask is missing or the scheduler cannot be reached."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import pytest

from rulecraft.tools.simulate import executors
from rulecraft.tools.cli.main import main


def rulecraft(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rulecraft.tools.cli.main", *args], capture_output=True, text=True,
                          timeout=600)


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
    monkeypatch.setattr(executors, "CLUSTER_TIMEOUT", 2.0)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["simulate", "pig", "--games", "2", "--cluster", f"tcp://127.0.0.1:{port}"]) == 1
    err = capsys.readouterr().err
    assert f"rulecraft simulate: cannot reach the Dask scheduler at tcp://127.0.0.1:{port}" in err
    assert "Traceback" not in err
    assert main(["simulate", "pig", "--games", "2", "--cluster", "no such address::"]) == 1
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err


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
