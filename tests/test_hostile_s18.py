"""Session 18: hostile input of kinds not tried before (docs/security.md, section 18). Each test failed before its fix."""

from __future__ import annotations

import os
import subprocess
import sys

RULECRAFT = os.path.join(os.path.dirname(sys.executable), "rulecraft")


def _run(cwd, *args: str, bound: float = 300) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([RULECRAFT, *args], cwd=cwd, capture_output=True, text=True, timeout=bound)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"'rulecraft {' '.join(args)}' never ended (waited {bound:.0f} s)") from None


def test_a_matplotlibrc_in_the_folder_is_never_read_by_the_report(tmp_path):
    # matplotlib reads ./matplotlibrc as it is imported: a stranger's folder (a zip of a game) chooses how the report
    # is drawn. A FIFO there hung `simulate --report` for ever; `text.usetex: True` ended it in exit 3 (or, with TeX
    # installed, fed the ruleset's texts to TeX); a bad line was printed to the terminal with its escape sequences.
    fifo = tmp_path / "fifo"
    fifo.mkdir()
    os.mkfifo(fifo / "matplotlibrc")
    done = _run(fifo, "simulate", "pig", "--games", "3", "--report", "rep", bound=120)
    assert done.returncode == 0, done.stderr
    assert (fifo / "rep" / "index.html").is_file()
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "matplotlibrc").write_text("text.usetex: True\nbad\x1b]0;PWNED\x07key: 1\nlines.linewidth: \x1b[2Jzz\n")
    done = _run(bad, "simulate", "pig", "--games", "3", "--report", "rep")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stderr + done.stdout and "matplotlibrc" not in done.stderr
    assert (bad / "rep" / "index.html").is_file()


def _tangle(ifs: int) -> str:
    """A loop of `ifs` questions, every other one going back to the loop's start: 20 KB of ruleset for 500, whose
    chart (316 KB of DOT, well within its limit) Graphviz was still laying out after 10 minutes, in 430 MB."""
    steps = "".join(f'          - if: "x == {i}"\n            then: ["{"continue" if i % 2 else "break"}"]\n'
                    for i in range(ifs))
    return ("ruleset: tangle\ntitle: Tangle\nplayers: {min: 2, max: 2}\nstart: game\nvariables:\n  x: 0\n"
            "sequences:\n  game:\n    kind: stage\n    title: The game\n    steps:\n"
            "      - loop: outer\n        do:\n" + steps)


def test_graphviz_is_bounded_in_processor_time_whatever_the_size_of_its_dot(tmp_path, monkeypatch):
    import pytest

    from rulecraft.tools.chart import dotrun

    path = tmp_path / "tangle.yaml"
    path.write_text(_tangle(500))
    done = _run(tmp_path, "render", "tangle.yaml", "--format", "dot", "-o", "tangle.dot", "--detail", "full")
    assert done.returncode == 0, done.stderr
    source = (tmp_path / "tangle.dot").read_text()
    dotrun.check_size([source[:0]])  # (its shape is refused before Graphviz runs: tests/test_hostile_s18b.py)
    monkeypatch.setattr(dotrun, "MAX_PLACED", 10**9, raising=False)  # the bound on processor time, the last resort
    monkeypatch.setattr(dotrun, "MAX_CPU_SECONDS", 1, raising=False)  # 60 in earnest: 1 keeps the test cheap
    with pytest.raises(dotrun.DotError, match="within 1 s of processor"):
        dotrun.run_dot(source, "svg")
    with pytest.raises(dotrun.DotError, match="within 1 s of processor"):
        dotrun.run_layouts([source, "digraph { a -> b }"], "pdf", workers=1)


# ---------------------------------------------------------------------------------------------- the studio's sockets

TOKEN = "t0ken-for-the-s18-tests"


def _frames(conn):
    """The server's frames as (opcode, payload), until it closes (bounded only so a failing test ends)."""
    conn.settimeout(90)
    buf = b""

    def need(n):
        nonlocal buf
        while len(buf) < n:
            chunk = conn.recv(65536)
            if not chunk:
                raise EOFError
            buf += chunk
        got, buf = buf[:n], buf[n:]
        return got

    while True:
        try:
            head = need(2)
        except (EOFError, ConnectionResetError):
            return
        size = head[1] & 0x7F
        if size == 126:
            size = int.from_bytes(need(2), "big")
        elif size == 127:
            size = int.from_bytes(need(8), "big")
        yield head[0] & 0x0F, need(size)


def test_a_seat_s_socket_refuses_a_huge_message_as_its_header_arrives(tmp_path):
    """uvicorn's limit of a websocket message is the language server's (16 MiB, for a document at its limit), and
    a seat's socket (a link handed to every player, 4 places each, the spectator's 16) read a message up to it
    before its own limit of 16 KB refused it: a message sent slowly, in pieces, held 16 MiB a connection for as
    long as its sender answered pings. Each socket now has the limit of what its route takes."""
    import json
    import shutil
    import urllib.request

    from rulecraft.bundled import resolve
    from studio_uvicorn import raw_websocket, served, stopped

    shutil.copy(resolve("pig"), tmp_path / "pig.yaml")
    server, thread, port, _app = served(tmp_path, TOKEN)
    base = f"http://127.0.0.1:{port}"
    try:
        asked = urllib.request.Request(base + "/api/play/new", method="POST", headers={
            "authorization": f"token {TOKEN}", "origin": base, "content-type": "application/json"},
            data=json.dumps({"ruleset": "pig.yaml", "seats": ["human", "human"], "seed": 3}).encode())
        with urllib.request.urlopen(asked, timeout=60) as r:
            link = json.loads(r.read())["seats"][0]["link"]
        with raw_websocket(port, link, base) as conn:
            # the header of a text message that says it is 1 MiB long (masked with a key of zeros); none of it sent yet
            conn.sendall(bytes([0x81, 0x80 | 127]) + (1 << 20).to_bytes(8, "big") + bytes(4))
            closes = [payload for op, payload in _frames(conn) if op == 0x8]
        assert closes and int.from_bytes(closes[0][:2], "big") == 1009, closes  # 1009: the message is too big
    finally:
        stopped(server, thread)


def test_a_bar_chart_of_the_report_draws_a_bounded_number_of_keys():
    """A per_game metric keyed by something new in every game (`by: "random(1..100000)"`) had one bar, one label and
    one figure above it for each game: 4.3 ms of processor a bar (200,000 keys are kept: 15 minutes for one plot), and
    a black smear from 40 on (the percentages above the bars overlap past 20). The chart shows the keys seen most, and says so; the table below it lists them all."""
    from rulecraft.tools.simulate import report
    from rulecraft.tools.simulate.metrics import Row

    rows = [Row(metric="m", key=i, label=str(i), stat="rate", n=1 + (i % 7 == 0), s=1) for i in range(500)]
    fig = report._rate_bars(report._plt(), rows, "spread", "by random(1..100000)")
    ax = fig.axes[0]
    assert len(ax.patches) == 20 and len(ax.get_xticklabels()) == 20
    assert "20 keys of 500 seen most" in ax.get_title(loc="left")
    assert [t.get_text() for t in ax.get_xticklabels()][:3] == ["0", "7", "14"]  # the most seen, in their order
    import matplotlib.pyplot as plt

    plt.close(fig)
