"""The command line: verbs, exit codes, and that user mistakes print diagnostics, never tracebacks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from rulecraft.tools.cli import main as cli
from rulecraft.tools.cli.main import main

CONTRACT_VERBS = ["list", "validate", "play", "replay", "render", "sheets", "book", "simulate", "compare", "diff"]


def _loader_ready() -> bool:
    try:
        from rulecraft.checks import run_checks  # noqa: F401
        from rulecraft.loader import build, schema, variants  # noqa: F401
    except ImportError:
        return False
    return True


# The lead is still writing the loader's passes; `load_ruleset` imports them on every call.
needs_loader = pytest.mark.xfail(
    not _loader_ready(),
    reason="load_ruleset imports rulecraft.loader.{build,schema,variants} and rulecraft.checks.run_checks, not written yet",
    strict=True,
)


def test_help_lists_every_contract_verb(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for verb in CONTRACT_VERBS:
        assert f"\n    {verb} " in out, verb
    assert "examples:" in out


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("rulecraft ")


def test_unknown_verb_is_a_usage_error(capsys):
    assert main(["lsit"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'list'?" in err
    assert "Traceback" not in err


def test_no_verb_is_a_usage_error(capsys):
    assert main([]) == 2


def test_validate_needs_a_ruleset(capsys):
    assert main(["validate"]) == 2


def test_list_prints_the_examples(capsys):
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "examples:" in lines
    assert any(line.split()[:2] == ["pig", "Pig"] for line in lines)


def test_list_names_is_one_name_per_line(capsys):
    assert main(["list", "--names"]) == 0
    names = capsys.readouterr().out.split("\n")
    assert "pig" in names
    assert all(" " not in n for n in names)


@needs_loader
def test_validate_missing_file(capsys, tmp_path):
    missing = str(tmp_path / "nope.yaml")
    assert main(["validate", missing]) == 1
    out, err = capsys.readouterr()
    assert "error[E001]" in out
    assert "nope.yaml" in out
    assert "1 ruleset checked, 1 with errors" in out
    assert "Traceback" not in out + err


@needs_loader
@pytest.mark.parametrize(
    "content, code",
    [
        pytest.param(b"", "E010", id="empty"),
        pytest.param(b"# only a comment\n", "E010", id="only-comment"),
        pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "E003", id="binary"),
        pytest.param(b"- a\n- b\n", "E011", id="list-not-mapping"),
        pytest.param(b"just a string\n", "E011", id="scalar-not-mapping"),
    ],
)
def test_validate_bad_files(capsys, tmp_path, content, code):
    path = tmp_path / "bad.yaml"
    path.write_bytes(content)
    assert main(["validate", str(path)]) == 1
    out, err = capsys.readouterr()
    assert f"error[{code}]" in out
    assert "Traceback" not in out + err


@needs_loader
def test_validate_reports_every_file(capsys, tmp_path):
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    listed = tmp_path / "list.yaml"
    listed.write_text("- a\n")
    assert main(["validate", str(empty), str(listed)]) == 1
    out = capsys.readouterr().out
    assert "error[E010]" in out and "error[E011]" in out
    assert "2 rulesets checked, 2 with errors" in out


def test_validate_json_is_one_document(capsys, tmp_path):
    path = tmp_path / "empty.yaml"
    path.write_text("")
    main(["validate", "--format", "json", str(path)])
    records = json.loads(capsys.readouterr().out)
    assert isinstance(records, list) and len(records) == 1
    assert records[0]["ruleset"] == str(path)
    assert records[0]["ok"] is False
    assert isinstance(records[0]["diagnostics"], list)


@needs_loader
def test_validate_json_carries_the_diagnostics(capsys, tmp_path):
    path = tmp_path / "empty.yaml"
    path.write_text("")
    assert main(["validate", "--format", "json", str(path)]) == 1
    (record,) = json.loads(capsys.readouterr().out)
    assert [d["code"] for d in record["diagnostics"]] == ["E010"]
    assert record["diagnostics"][0]["line"] == 1


@needs_loader
def test_validate_example_is_ok(capsys):
    assert main(["validate", "pig"]) == 0
    out = capsys.readouterr().out
    assert "ok: pig (Pig)" in out
    assert "1 ruleset checked, 0 with errors" in out


def test_drawing_verbs_are_built(tmp_path, monkeypatch, capsys):
    """render, sheets and book used to answer 'not built yet'; they dispatch to their modules now."""
    monkeypatch.chdir(tmp_path)
    assert main(["render", "pig", "--sequence", "turn", "--format", "dot", "-o", "out.dot"]) == 0
    assert "not built yet" not in capsys.readouterr().err


def _with_handler(monkeypatch, verb: str, handler) -> None:
    verbs = tuple(v._replace(run=handler) if v.name == verb else v for v in cli.VERBS)
    monkeypatch.setattr(cli, "VERBS", verbs)


def test_interrupt_exits_130(capsys, monkeypatch):
    def interrupted(args):
        raise KeyboardInterrupt

    _with_handler(monkeypatch, "list", interrupted)
    assert main(["list"]) == 130
    assert "Traceback" not in capsys.readouterr().err


def test_unexpected_exception_is_an_internal_error(capsys, monkeypatch):
    def broken(args):
        raise RuntimeError("boom")

    _with_handler(monkeypatch, "list", broken)
    monkeypatch.delenv("RULECRAFT_DEBUG", raising=False)
    assert main(["list"]) == 3
    err = capsys.readouterr().err
    assert "internal error" in err and "boom" in err and "please report this" in err
    assert "Traceback" not in err


def test_broken_pipe_is_quiet(capsys, monkeypatch):
    def closed(args):
        raise BrokenPipeError

    _with_handler(monkeypatch, "list", closed)
    assert main(["list"]) == cli.EXIT_BROKEN_PIPE
    assert capsys.readouterr().err == ""


def _run(args: list[str]) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "RULECRAFT_DEBUG"}
    return subprocess.run(args, capture_output=True, text=True, timeout=60, env=env)


def test_console_script_help():
    exe = shutil.which("rulecraft", path=os.path.dirname(sys.executable)) or shutil.which("rulecraft")
    args = [exe, "--help"] if exe else [sys.executable, "-m", "rulecraft.tools.cli.main", "--help"]
    done = _run(args)
    assert done.returncode == 0, done.stderr
    assert "validate" in done.stdout and "simulate" in done.stdout


def test_help_imports_no_heavy_module():
    code = (
        "import sys, contextlib, io\n"
        "import rulecraft.tools.cli.main as c\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    rc = c.main(['--help'])\n"
        "print(rc, sorted(m for m in ('lark', 'yaml', 'jsonschema', 'graphviz') if m in sys.modules))\n"
    )
    done = _run([sys.executable, "-c", code])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0 []"


def test_pipe_closed_early_prints_no_traceback():
    # `rulecraft list | head -0`: the reader is gone before anything is written
    code = "import sys; from rulecraft.tools.cli.main import main; sys.exit(main(['list']))"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    proc.stderr.close()
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


# ---------------------------------------------------------------- play and replay
def test_play_logs_a_game_that_replays_identically(tmp_path, capsys):
    log = tmp_path / "pig.log"
    assert main(["play", "pig", "--seed", "5", "--log", str(log), "--quiet"]) == 0
    assert "winner:" in capsys.readouterr().out
    assert main(["replay", str(log)]) == 0
    assert "identical" in capsys.readouterr().out


def test_replay_reports_the_first_tampered_line(tmp_path, capsys):
    log = tmp_path / "pig.log"
    assert main(["play", "pig", "--seed", "5", "--log", str(log), "--quiet"]) == 0
    lines = log.read_text().splitlines()
    i = next(i for i, l in enumerate(lines) if '"choice":true' in l)
    lines[i] = lines[i].replace('"choice":true', '"choice":false')
    log.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["replay", str(log)]) == 1
    out = capsys.readouterr().out
    assert f"pig.log:{i + 2}:" in out or f"pig.log:{i + 1}:" in out, out
    assert "Traceback" not in out


def test_replay_of_a_truncated_log_fails_unless_partial(tmp_path, capsys):
    log = tmp_path / "pig.log"
    assert main(["play", "pig", "--seed", "5", "--log", str(log), "--quiet"]) == 0
    lines = log.read_text().splitlines()
    cut = tmp_path / "cut.log"
    cut.write_text("\n".join(lines[:10]) + "\n" + lines[10][:7])
    capsys.readouterr()
    assert main(["replay", str(cut)]) == 1
    assert "cut short" in capsys.readouterr().out
    assert main(["replay", str(cut), "--partial"]) == 0


def test_play_with_a_scripted_agent_that_runs_dry_exits_1(tmp_path, capsys):
    script = tmp_path / "choices.json"
    script.write_text("[true]")
    assert main(["play", "pig", "--agent", f"script:{script}", "--quiet"]) == 1
    assert "ran out of choices" in capsys.readouterr().err


def test_play_unknown_agent_is_a_usage_error(capsys):
    assert main(["play", "pig", "--agent", "wizard"]) == 2
    assert "unknown agent kind" in capsys.readouterr().err


def test_play_with_set_changes_a_parameter(capsys):
    assert main(["play", "pig", "--set", "target_score=10", "--seed", "2", "--quiet"]) == 0
    assert main(["play", "pig", "--set", "nonsense=1"]) == 1
    assert "no parameter or option" in capsys.readouterr().out
