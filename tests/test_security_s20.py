"""Session 20: kinds of attack not tried before (docs/security.md, section 21). Each test was seen to fail before
its fix."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

from rulecraft.bundled import resolve

CLI = [sys.executable, "-m", "rulecraft.tools.cli.main"]


def _run(args, cwd, **env) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, timeout=300,
                          env={**os.environ, "RULECRAFT_DEBUG": "", **env})


@pytest.fixture(scope="module")
def accented(tmp_path_factory):
    """A stranger's ruleset written in another language: its title and a label hold letters outside ASCII."""
    home = tmp_path_factory.mktemp("accented")
    text = open(resolve("pig"), encoding="utf-8").read()
    text = text.replace("title: Pig", 'title: "Pïg ☃ 𝔛"', 1).replace("label: Roll or bank", "label: Lancer ☹", 1)
    (home / "pig.yaml").write_text(text, encoding="utf-8")
    return home


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_ruleset_s_letters_on_a_terminal_that_cannot_show_them_are_never_an_internal_error(accented, encoding):
    """A terminal or pipe whose encoding is not UTF-8 (PYTHONIOENCODING, a Latin-1 locale, a Windows console):
    `validate`, `play` and `replay` printed a stranger's title with Python's UnicodeEncodeError, exit 3."""
    done = _run(["validate", "pig.yaml"], accented, PYTHONIOENCODING=encoding)
    assert done.returncode == 0, done.stderr
    assert b"ok: pig (P" in done.stdout and b"internal error" not in done.stderr
    done = _run(["play", "pig.yaml", "--agent", "random", "--agent", "random", "--seed", "1", "--log", "g.log"],
                accented, PYTHONIOENCODING=encoding)
    assert done.returncode == 0 and b"internal error" not in done.stderr, done.stderr
    assert b"g ? ?: 2 players" in done.stdout  # what the terminal cannot show is '?'
    done = _run(["replay", "g.log"], accented, PYTHONIOENCODING=encoding)
    assert done.returncode == 0 and b"identical" in done.stdout, done.stderr


def test_a_document_to_standard_output_is_utf8_whatever_the_terminal_s_encoding(accented):
    """`book -o -` (and every text document written to `-`) is UTF-8, as its file would be and as its HTML says:
    under a Latin-1 standard output it was an internal error, exit 3."""
    done = _run(["book", "pig.yaml", "-o", "-"], accented, PYTHONIOENCODING="latin-1")
    assert done.returncode == 0, done.stderr
    assert "Pïg ☃ 𝔛".encode("utf-8") in done.stdout
    done = _run(["render", "pig.yaml", "--format", "dot", "--sequence", "turn", "-o", "-"], accented,
                PYTHONIOENCODING="ascii")
    assert done.returncode == 0, done.stderr
    assert "Lancer ☹".encode("utf-8") in done.stdout


def _file_size_limit(limit: int):
    def limited():
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return limited


def test_graphviz_cut_short_by_a_file_size_limit_is_a_line_not_an_internal_error(tmp_path):
    """`ulimit -f` (RLIMIT_FSIZE) or a full temporary folder: Graphviz drawing the sheets' charts in a batch was killed
    by SIGXFSZ in the middle of a PDF; its return code was not looked at and the half PDF was read: pypdf's
    PdfStreamError, exit 3. A batch that fails now has each of its charts drawn alone, and what still fails is said."""
    pig = resolve("pig")
    done = subprocess.run([*CLI, "sheets", pig, "-o", "s.pdf"], cwd=tmp_path, capture_output=True, timeout=300,
                          preexec_fn=_file_size_limit(20_000), env={**os.environ, "RULECRAFT_DEBUG": ""})
    assert done.returncode in (0, 1), done.stderr
    assert b"internal error" not in done.stderr and len(done.stderr.splitlines()) <= 2, done.stderr
    if done.returncode == 1:
        assert b"too large" in done.stderr
        assert not os.path.exists(tmp_path / "s.pdf") and not any(p.name.startswith(".") for p in tmp_path.iterdir())


@pytest.mark.parametrize("args", [["validate", "pig"], ["list"], ["schema"], ["diff", "pig", "party"],
                                  ["play", "pig", "--agent", "random", "--agent", "random", "--seed", "1"],
                                  ["book", "pig", "-o", "-"]])
def test_standard_output_on_a_full_disk_is_one_line_never_an_internal_error(tmp_path, args):
    """`rulecraft validate x > report.txt` on a full disk (here `/dev/full`): 'internal error: OSError: [Errno 28]',
    exit 3. Now one line on standard error saying standard output could not be written, exit 1."""
    if args[:1] == ["diff"]:
        party = tmp_path / "party.yaml"
        party.write_text(open(resolve("pig"), encoding="utf-8").read().replace("default: 100", "default: 50", 1),
                         encoding="utf-8")
        args = ["diff", resolve("pig"), str(party)]
    with open("/dev/full", "w") as full:
        done = subprocess.run([*CLI, *args], cwd=tmp_path, stdout=full, stderr=subprocess.PIPE, timeout=300,
                              env={**os.environ, "RULECRAFT_DEBUG": ""})
    assert done.returncode == 1, done.stderr
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1 and "standard output" in lines[0] and "the disk is full" in lines[0], lines


def test_a_report_draws_a_bounded_number_of_plots_however_many_metrics_a_ruleset_declares(tmp_path, monkeypatch):
    """2,000 metrics of one line each (100 KB of ruleset): `simulate --report` drew 2,000 plots, every figure open at
    once (more than 120 s and 480 MB, unfinished), and so did the studio's Simulate. A report now draws at most
    MAX_FIGURES plots; the table below them lists every metric, and the last plot's caption says so."""
    from rulecraft.tools.simulate import report
    from rulecraft.tools.simulate.runs import simulate

    text = open(resolve("pig"), encoding="utf-8").read()
    many = "".join(f'  m{i}: {{kind: per_game, doc: metric {i}, value: "{i}"}}\n' for i in range(12))
    (tmp_path / "many.yaml").write_text(text.replace("metrics:\n", "metrics:\n" + many, 1), encoding="utf-8")
    monkeypatch.setattr(report, "MAX_FIGURES", 4, raising=False)
    summary = simulate(str(tmp_path / "many.yaml"), 2, seed=1, workers=1, keep="none")
    figures = report.svg_figures(summary)
    assert len(figures) == 4, [f["name"] for f in figures]
    assert "At most 4 plots a report" in figures[-1]["caption"]
    assert "m11" in report._table(summary.rows())  # every metric is still in the table


class _Endless:
    """`< /dev/zero`: bytes for ever and never a line break (a test's bound turns a hang into a failure)."""

    def __init__(self):
        self.read = 0

    def readline(self, limit=-1):
        self.read += 1
        assert self.read < 100_000, "still reading one line"
        return b"\0" * limit


def test_an_input_that_never_ends_its_line_stops_the_game_as_the_end_of_input_does():
    """`rulecraft play ... --agent human < /dev/zero`: the rest of an over-long line was dropped until its line
    break, which never came: the game read for ever, saying nothing. Past 1 MiB of one line the input is no
    person's typing, and the game stops as at the end of input (saved, 'game stopped')."""
    from rulecraft.agents.human import MAX_DROPPED, HumanAgent, HumanQuit

    endless = _Endless()
    agent = HumanAgent(0, endless, io.StringIO())
    with pytest.raises(HumanQuit):
        agent._readline()
    assert endless.read * 1001 <= MAX_DROPPED + 2 * 1001


def test_a_closed_standard_input_ends_a_person_s_answers_not_the_program(tmp_path):
    """`rulecraft play pig --agent human <&-`: 'internal error: AttributeError: NoneType has no attribute buffer',
    exit 3. A closed standard input now reads as an empty one: the game stops at the first question, saved."""
    done = subprocess.run([*CLI, "play", resolve("pig"), "--agent", "human", "--agent", "random", "--seed", "1"],
                          cwd=tmp_path, capture_output=True, timeout=300, preexec_fn=lambda: os.close(0),
                          env={**os.environ, "RULECRAFT_DEBUG": ""})
    assert b"internal error" not in done.stderr and done.returncode == 130, done.stderr
    assert b"game stopped" in done.stdout + done.stderr


def test_the_page_to_print_that_cannot_be_written_is_a_line_not_an_internal_error(tmp_path):
    """`book -o x.pdf` with a file size limit (or a temporary folder too full for the page): writing the HTML that
    Chromium prints raised OSError 'File too large' out of the printer: internal error, exit 3."""
    from rulecraft.tools.print.htmlpdf import find_chromium

    if find_chromium() is None:
        pytest.skip("no Chromium")
    done = subprocess.run([*CLI, "book", resolve("pig"), "-o", "b.pdf"], cwd=tmp_path, capture_output=True,
                          timeout=300, preexec_fn=_file_size_limit(3_000), env={**os.environ, "RULECRAFT_DEBUG": ""})
    assert done.returncode == 1 and b"internal error" not in done.stderr, done.stderr
    assert b"the file would be too large" in done.stderr and not (tmp_path / "b.pdf").exists()


def test_the_aid_lists_a_bounded_number_of_lines_however_long_the_ruleset_s_lists(tmp_path):
    """A ruleset of 15,000 parameters (1.1 MB, within every limit): the aid listed each as a key number, Chromium
    printed the hundreds of pages once for each compact try, and `aid` gave up after 140 s saying the machine was
    busy. Each list of the aid is now cut to MAX_ITEMS lines, the last saying how many more the rulebook gives."""
    from rulecraft.loader import load_ruleset
    from rulecraft.tools.print import aid
    from rulecraft.tools.print.flow import cuts

    text = open(resolve("pig"), encoding="utf-8").read()
    many = "".join(f"  p{i}: {{default: {i}, doc: Things of kind {i}.}}\n" for i in range(300))
    (tmp_path / "many.yaml").write_text(text.replace("parameters:\n", "parameters:\n" + many, 1), encoding="utf-8")
    view = aid.aid_view(load_ruleset(str(tmp_path / "many.yaml")).ruleset)
    limit = cuts.MAX_ITEMS
    assert len(view.numbers) == limit + 1, len(view.numbers)
    assert view.numbers[-1][0] == f"... and {300 + 2 - limit} more: see the rulebook"


def _forged(tmp_path, kind: str, key: str, value: str):
    """A log or save of pig whose header's `key` holds `value` (a stranger's edit)."""
    import json

    from rulecraft.tools.cli.main import main

    path = tmp_path / f"g.{kind}"
    option = "--log" if kind == "log" else "--save"
    assert main(["play", resolve("pig"), "--agent", "random", "--agent", "random", "--seed", "1", "--quiet",
                 option, str(path)]) == 0
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header[key] = value
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    return path


FORGED = "x.yaml\n\nwinner: P1, scores [100, 83]\ng.log: replayed 51 decisions: identical\n"


def test_a_log_or_save_never_forges_a_line_of_what_replay_and_resume_print(tmp_path, capsys):
    """A log's header naming its ruleset 'x.yaml<LF><LF>winner: P1 ...<LF>g.log: replayed 51 decisions: identical':
    `replay` quoted it in its verdict, line breaks and all, so the screen held a verdict of 'identical' under the
    real one (and a save's name did the same under `play --resume`). A verdict, a warning and an error line quote a
    stranger's text on one line: its line breaks are shown as '?', as its control characters are."""
    from rulecraft.tools.cli.main import main

    log = _forged(tmp_path, "log", "ruleset", FORGED)
    capsys.readouterr()
    assert main(["replay", str(log)]) == 1
    got = capsys.readouterr()
    printed = (got.out + got.err).splitlines()
    assert len(printed) == 1 and "identical" in printed[0], printed
    assert not any(line.startswith(("winner:", "g.log:")) for line in printed)
    save = _forged(tmp_path, "save", "name", "pig\nrulecraft play: resumed: the game goes on")
    capsys.readouterr()
    assert main(["play", resolve("pig"), "--resume", str(save)]) == 1
    got = capsys.readouterr()
    assert len((got.out + got.err).splitlines()) == 1, got


def test_a_title_or_name_with_a_line_break_is_refused_where_it_would_forge_lines(tmp_path, capsys):
    """A title 'Pig)<LF>ok: hearts (Hearts': `validate` printed 'ok: pig (Pig)' then 'ok: hearts (Hearts)', a line
    for a ruleset it never checked, and `play` the same in its first line. A title or a name is one line: E013."""
    from rulecraft.tools.cli.main import main

    text = open(resolve("pig"), encoding="utf-8").read().replace("title: Pig", 'title: "Pig)\\nok: hearts (Hearts"', 1)
    (tmp_path / "nl.yaml").write_text(text, encoding="utf-8")
    assert main(["validate", str(tmp_path / "nl.yaml")]) == 1
    out = capsys.readouterr().out
    assert "error[E013]: this title holds a line break" in out and "\nok: hearts" not in out
