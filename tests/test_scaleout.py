"""Aggregating in the workers changes no figure: rows, JSON, CSV and report are those the list of results gives.

The reference is the pre-aggregation computation: `metrics.all_rows` over the list of every
game's result (still in tools/simulate/metrics.py) and the JSON summary as it was computed from that
list (`reference_json` below, the former `Summary.to_json`).
"""

from __future__ import annotations

import json
import random
from collections import Counter

import numpy
import pytest

from rulecraft.tools.simulate import runs as sim
from rulecraft.tools.simulate.aggregate import Samples, Spool, Tally, stats
from rulecraft.tools.simulate.metrics import all_rows, row_text
from rulecraft.tools.simulate.stats import median


def _stats(values):
    if not values:
        return {}
    n = len(values)
    return {"min": values[0], "median": values[n // 2], "mean": round(sum(values) / n, 2), "max": values[-1]}


def reference_json(s: sim.Summary) -> dict:
    """The JSON summary computed from every result, as before the aggregation."""
    done = [r for r in s.results if "error" not in r]
    cov: Counter = Counter()
    for r in done:
        cov.update(r.get("coverage", {}))
    rows = all_rows(done, s.players, s.metric_defs)
    win = []
    for seat in range(s.players):
        wins = sum(1 for r in done if seat in (r.get("winners") or []))
        est = wins / len(done) if done else 0.0
        lo, hi = sim.wilson(wins, len(done))
        win.append({"seat": seat, "rate": round(est, 4), "low": round(lo, 4), "high": round(hi, 4)})
    return {"ruleset": s.ruleset, "games": s.games, "players": s.players, "seed": s.seed,
            "seconds": round(s.seconds, 3), "errors": [r for r in s.results if "error" in r],
            "no_winner": sum(1 for r in done if not r.get("winners")), "win_rate": win,
            "decisions": _stats(sorted(r["decisions"] for r in done)), "steps": _stats(sorted(r["steps"] for r in done)),
            "coverage": dict(cov) if cov else None, "never_reached": s.never_reached, "agents": s.agents,
            "metrics": [{**d, "rows": [r.to_json() for r in rs]} for d, rs in rows[1:]], "results": s.results}


def as_text(groups) -> list:
    return [(d, [(r.ident, r.stat, r.n, r.s, r.ss, r.to_json(), row_text(r)) for r in rows]) for d, rows in groups]


@pytest.mark.parametrize("ruleset, games, workers", [("pig", 60, 2), ("dml", 6, 1)])
def test_json_and_rows_are_those_of_the_list_of_results(ruleset, games, workers):
    s = sim.simulate(ruleset, games, seed=11, workers=workers, coverage=True)
    assert len(s.results) == games
    assert json.dumps(s.to_json()) == json.dumps(reference_json(s))  # same values, same key order
    done = list(s.finished())
    assert len(s.finished()) == len(done) == s.done
    assert as_text(s.rows()) == as_text(all_rows(done, s.players, s.metric_defs))


def _fake_results(n: int, seed: int) -> list[dict]:
    """Results with every shape of metric: counts, 0/1 values, whole and fractional numbers, keys of every type,
    games without a metric, and errors."""
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        if rnd.random() < 0.1:
            out.append({"seed": i, "error": f"E900: broken {i}"})
            continue
        metrics = {}
        if rnd.random() < 0.8:
            metrics["counted"] = [[k, rnd.randint(1, 4), 0, 0] for k in rnd.sample([1, 2, 3, 10], rnd.randint(0, 3))]
            for row in metrics["counted"]:
                row[2] = row[3] = row[1]
        if rnd.random() < 0.8:
            rows = []
            for k in rnd.sample(["a", "b", None, True], rnd.randint(1, 3)):
                n_ = rnd.randint(1, 5)
                s = rnd.randint(0, n_)
                rows.append([k, n_, s, s])
            metrics["binary"] = rows
        metrics["numeric"] = [[k, 1, v, v * v] for k, v in ((k, rnd.choice([0.5, 2.25, -3, 7, 1e3])) for k in
                                                              rnd.sample([0, 1.5, 2], rnd.randint(0, 2)))]
        metrics["per_player"] = [[k, 1, rnd.randint(0, 1), 0] for k in ("x", "y")]
        for row in metrics["per_player"]:
            row[3] = row[2]
        metrics["per_game"] = [[None, 1, rnd.choice([1, 2.5, 40]), 0]]
        metrics["shares"] = [[rnd.choice(["u", "v", "w"]), 1, 1, 1]]
        out.append({"seed": i, "winners": rnd.sample([0, 1, 2], rnd.randint(0, 2)), "scores": [1, 2, 3],
                    "decisions": rnd.randint(5, 40), "steps": rnd.randint(50, 400), "players": 3,
                    "coverage": {f"n{j}": rnd.randint(1, 3) for j in rnd.sample(range(12), 5)}, "metrics": metrics})
    return out


DEFS = {"counted": {"kind": "tally", "doc": "", "role": None, "by": None},
        "binary": {"kind": "tally", "doc": "", "role": None, "by": None},
        "numeric": {"kind": "tally", "doc": "", "role": "length", "by": None},
        "per_player": {"kind": "per_player", "doc": "", "role": None, "by": "p"},
        "per_game": {"kind": "per_game", "doc": "", "role": None, "by": None},
        "shares": {"kind": "per_game", "doc": "", "role": "victory", "by": "x"},
        "missing": {"kind": "tally", "doc": "", "role": None, "by": None}}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_chunks_merged_in_any_split_give_the_rows_of_the_whole_list(seed):
    results = _fake_results(300, seed)
    whole = as_text(all_rows([r for r in results if "error" not in r], 3, DEFS))
    rnd = random.Random(seed)
    cuts = sorted(rnd.sample(range(1, 300), 7))
    merged = Tally()
    for a, b in zip([0, *cuts], [*cuts, 300]):
        part = Tally()
        for r in results[a:b]:
            part.add(r)
        merged.merge(part)
    assert as_text(merged.all_rows(3, DEFS)) == whole
    s = sim.Summary("fake", 300, 3, 0, results=results, metric_defs=DEFS)
    assert json.dumps(s.to_json()) == json.dumps(reference_json(s))
    assert merged.errors == [r for r in results if "error" in r]
    assert list(merged.coverage) == list(s.to_json()["coverage"])  # nodes in the order first reached


def test_fractional_sums_are_exact_whatever_the_order():
    t1, t2 = Tally(), Tally()
    vals = [0.1, 0.2, 0.3, 1e16, -1e16]
    for order, t in ((vals, t1), (vals[::-1], t2)):
        for i, v in enumerate(order):
            t.add({"seed": i, "winners": [], "decisions": 1, "steps": 1, "metrics": {"m": [[None, 1, v, v * v]]}})
    d = {"m": {"kind": "tally", "doc": "", "role": None, "by": None}}
    assert as_text(t1.all_rows(1, d)) == as_text(t2.all_rows(1, d))


def test_samples_behave_as_the_sorted_list_of_values():
    values = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]
    for vs in (values, values[:-1], [7], []):
        s = Samples(Counter(vs))
        assert list(s) == sorted(vs) and len(s) == len(vs)
        assert [s[i] for i in range(len(vs))] == sorted(vs) and s[-1:] == sorted(vs)[-1:]
        assert median(s) == median(vs)
        assert stats(Counter(vs)) == _stats(sorted(vs))
        assert numpy.asarray(s).tolist() == sorted(vs)  # what the plots are drawn from


def test_spool_keeps_results_on_disk_and_reads_them_back():
    sp = Spool()
    rs = [{"seed": i, "metrics": {"m": [[None, 1, 0.5, 0.25], [True, 2, 0.1, 1e300], [2.5, 1, 2 ** 70, -0.0]]},
           "scores": {"$map": [[1, "é"]]}, "k": [i] * 3} for i in range(50)]
    sp.extend(rs)
    assert list.__len__(sp) == 0 and len(sp) == 50 and sp == rs
    assert [(a["seed"], b["seed"]) for a in sp for b in sp][:3] == [(0, 0), (0, 1), (0, 2)]  # loops may nest
    assert sp[7] == rs[7] and sp[-1] == rs[-1] and sp[2:4] == rs[2:4]
    assert json.dumps(sp, indent=1) == json.dumps(rs, indent=1)


def test_files_are_the_same_with_results_on_disk(tmp_path):
    mem = sim.simulate("pig", 40, seed=2, workers=2, coverage=True)
    disk = sim.simulate("pig", 40, seed=2, workers=2, coverage=True, keep="disk")
    none = sim.simulate("pig", 40, seed=2, workers=2, coverage=True, keep="none")
    assert isinstance(disk.results, Spool) and none.results == []
    for s in (mem, disk, none):
        s.seconds = 0.0
    for name, writer in (("j", sim.write_json), ("c", sim.write_csv)):
        writer(mem, str(tmp_path / f"mem.{name}"))
        writer(disk, str(tmp_path / f"disk.{name}"))
        assert (tmp_path / f"mem.{name}").read_bytes() == (tmp_path / f"disk.{name}").read_bytes()
    assert sim.report(none) == sim.report(mem)
    assert none.to_json() == {**mem.to_json(), "results": []}
    assert len(none.finished()) == len(mem.finished()) == 40 and none.finished()
    with pytest.raises(RuntimeError, match="not kept"):
        list(none.finished())
    assert list(disk.finished()) == list(mem.finished())


def test_kept_results_may_leave_coverage_out():
    lean = sim.simulate("pig", 10, seed=2, workers=2, coverage=True, keep_coverage=False)
    assert lean.results and not any("coverage" in r for r in lean.results)
    assert lean.coverage_counts()  # the aggregate still has it


def test_the_cli_keeps_no_results_without_a_file_that_lists_them(monkeypatch, capsys):
    seen = {}
    real = sim.simulate

    def spy(*args, **kw):
        seen.update(kw)
        return real(*args, **kw)

    monkeypatch.setattr(sim, "simulate", spy)
    from rulecraft.tools.cli.main import main

    assert main(["simulate", "pig", "--games", "4", "--workers", "1"]) == 0
    assert seen["keep"] == "none"
    assert "win rate by seat" in capsys.readouterr().out


def test_the_executor_example_of_the_docs_runs_and_gives_the_local_results(capsys):
    import pathlib
    import re

    text = (pathlib.Path(__file__).parent.parent / "docs" / "simulation.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "class InProcess" in b)
    scope: dict = {}
    exec(compile(block, "docs/simulation.md", "exec"), scope)
    assert "win rate by seat" in capsys.readouterr().out
    local = sim.simulate("pig", 40, seed=1, workers=1)
    assert as_text(scope["summary"].rows()) == as_text(local.rows())


def test_workers_are_capped_at_the_cores_and_the_games(monkeypatch):
    """--workers 1000000 for 10 games started 432 processes; a pool has no more workers than cores or games."""
    from rulecraft.tools.simulate import executors, runs

    asked = []
    real = executors.local_pool

    def counting_pool(workers):
        asked.append(workers)
        return real(workers)

    monkeypatch.setattr(runs, "local_pool", counting_pool)
    monkeypatch.setattr(runs, "cores", lambda: 2)
    summary = runs.simulate("pig", 10, workers=1_000_000)
    assert summary.tally.games == 10 and asked == [2]
    asked.clear()
    runs.simulate("pig", 1, workers=1_000_000)  # one game: played here, no pool at all
    assert asked == []


def test_a_huge_number_of_games_is_never_built_up_front_and_ctrl_c_stops_it():
    """--games 1000000000000: the seeds and chunks are made as the run goes, so Ctrl-C stops it at once."""
    import signal

    from ptysignal import signal_when_playing

    rc, text = signal_when_playing(["simulate", "pig", "--games", "1000000000000", "--workers", "2"], signal.SIGINT,
                                   b"/1000000000000 games")
    assert rc == 130, text[-500:]
    assert "interrupted (Ctrl-C) after" in text and "of 1,000,000,000,000 games; nothing written" in text
    assert "Traceback" not in text


def test_a_lock_error_left_by_ctrl_c_is_still_the_interrupt(monkeypatch):
    """Ctrl-C landing inside a lock's `with` in the pool's bookkeeping can surface as Python's 'cannot release
    un-acquired lock' raised while the KeyboardInterrupt unwinds: the run still stops as interrupted (exit 130)."""
    from rulecraft.tools.simulate import runs
    from rulecraft.tools.simulate.executors import Interrupted

    def ordered(*_args, **_kw):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise RuntimeError("cannot release un-acquired lock")  # noqa: B904  (its implicit context is the point)

    monkeypatch.setattr(runs, "local_pool", lambda workers: object())
    monkeypatch.setattr(runs, "kill_pool", lambda ex: None)
    monkeypatch.setattr(runs, "run_ordered", ordered)
    with pytest.raises(Interrupted):
        runs.simulate("pig", 10, workers=2)

    def other(*_args, **_kw):
        raise RuntimeError("something else")

    monkeypatch.setattr(runs, "run_ordered", other)
    with pytest.raises(RuntimeError, match="something else"):  # any other error is not taken for Ctrl-C
        runs.simulate("pig", 10, workers=2)
