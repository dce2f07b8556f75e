"""The one writer of output files (rulecraft.files) and the file checks of what is read back.

Issue 14, items 8, 9, 10 and 13. Device nodes are made ONLY inside the test's temporary
folder (null = char 1,3, full = char 1,7); the machine's own /dev/null, /dev/full and
/dev/stdout are never used. We run as root, where `chmod` does not stop a write: a read-only
target is a read-only tmpfs mounted inside the test's folder (EROFS for real), a full disk a
small tmpfs (ENOSPC for real, for a replaced file and for a streamed log) or the full device;
both mounts are skipped where mounting is not allowed. A refused rename or temporary file is
also tested with a patched `os` call, and `chmod` only when the tests do not run as root.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from rulecraft.files import InputError, OutputError, open_stream, read_regular, replace_file, write_output
from rulecraft.tools.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
PIG = str(ROOT / "rulesets" / "examples" / "pig.yaml")


def _mknod(folder: Path, name: str, minor: int) -> Path:
    path = folder / name
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
    except PermissionError:
        pytest.skip("making a device node needs root")
    return path


def _leftovers(folder: Path, keep: set[str]) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name not in keep)


def _is_char_device(path: Path) -> bool:
    return stat.S_ISCHR(os.lstat(path).st_mode)


# ------------------------------------------------------------------ the writer itself


def test_a_regular_file_is_replaced_whole_keeping_its_mode(tmp_path):
    out = tmp_path / "out.txt"
    out.write_text("old")
    os.chmod(out, 0o640)
    write_output(str(out), "new text")
    assert out.read_text() == "new text"
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert _leftovers(tmp_path, {"out.txt"}) == []


def test_a_planted_tmp_symlink_is_never_written_through(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious")
    for planted in ("out.txt.tmp", ".out.txt.tmp"):
        os.symlink(victim, tmp_path / planted)
    write_output(str(tmp_path / "out.txt"), "data")
    assert victim.read_text() == "precious"
    assert (tmp_path / "out.txt").read_text() == "data"
    assert _leftovers(tmp_path, {"out.txt", "victim", "out.txt.tmp", ".out.txt.tmp"}) == []


def test_a_symlink_target_is_replaced_as_a_name_not_followed(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious")
    os.symlink(victim, tmp_path / "out.txt")
    write_output(str(tmp_path / "out.txt"), "data")
    assert victim.read_text() == "precious"
    assert not (tmp_path / "out.txt").is_symlink() and (tmp_path / "out.txt").read_text() == "data"


def test_a_device_is_written_into_not_replaced(tmp_path):
    null = _mknod(tmp_path, "null", 3)
    write_output(str(null), b"x" * 100_000)
    write_output(str(null), "text")
    assert _is_char_device(null)
    assert _leftovers(tmp_path, {"null"}) == []


def test_a_symlink_to_a_device_is_written_into(tmp_path):
    null = _mknod(tmp_path, "null", 3)
    os.symlink(null, tmp_path / "link")
    write_output(str(tmp_path / "link"), "text")
    assert (tmp_path / "link").is_symlink() and _is_char_device(null)


def test_a_full_device_gives_a_clear_error(tmp_path):
    full = _mknod(tmp_path, "full", 7)
    with pytest.raises(OutputError, match="the disk is full"):
        write_output(str(full), "text")
    assert _is_char_device(full) and _leftovers(tmp_path, {"full"}) == []


def test_a_fifo_is_written_into(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_output(str(fifo), "through the pipe")
    reader.join()
    assert got == [b"through the pipe"] and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_folder_target_is_refused(tmp_path):
    (tmp_path / "dir").mkdir()
    with pytest.raises(OutputError, match="it is a folder"):
        write_output(str(tmp_path / "dir"), "x")
    assert _leftovers(tmp_path, {"dir"}) == [] and list((tmp_path / "dir").iterdir()) == []


def test_a_missing_folder_is_named(tmp_path):
    with pytest.raises(OutputError, match="the folder .*nowhere does not exist"):
        write_output(str(tmp_path / "nowhere" / "out.txt"), "x")


def test_a_disk_that_fills_up_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch):
    out = tmp_path / "out.txt"
    out.write_text("old")
    real_write = os.write

    def full_after_some(fd, data):
        if len(data) > 10:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", full_after_some)
    with pytest.raises(OutputError, match="the disk is full"):
        write_output(str(out), "a long text that does not fit")
    monkeypatch.undo()
    assert out.read_text() == "old" and _leftovers(tmp_path, {"out.txt"}) == []


def test_a_refused_rename_or_temp_file_is_said_and_cleaned(tmp_path, monkeypatch):
    """As root a read-only folder cannot be made with chmod: the refusals are patched in (EROFS, EACCES)."""
    monkeypatch.setattr(os, "replace", lambda a, b: (_ for _ in ()).throw(OSError(errno.EROFS, "Read-only")))
    with pytest.raises(OutputError, match="read-only"):
        write_output(str(tmp_path / "out.txt"), "x")
    assert _leftovers(tmp_path, set()) == []
    import tempfile

    monkeypatch.setattr(tempfile, "mkstemp", lambda **kw: (_ for _ in ()).throw(PermissionError(errno.EACCES, "no")))
    with pytest.raises(OutputError, match="permission denied"):
        write_output(str(tmp_path / "out.txt"), "x")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder anyway")
def test_a_read_only_folder_is_refused(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(OutputError, match="permission denied"):
            write_output(str(folder / "out.txt"), "x")
    finally:
        folder.chmod(0o700)


def test_a_save_is_never_a_device(tmp_path):
    null = _mknod(tmp_path, "null", 3)
    with pytest.raises(OutputError, match="not a regular file"):
        replace_file(str(null), "x")
    assert _is_char_device(null)


def test_a_stream_fails_once_then_closes_quietly(tmp_path):
    full = _mknod(tmp_path, "full", 7)
    stream = open_stream(str(full))
    with pytest.raises(OutputError, match="the disk is full"):
        stream.write("line\n")
    stream.close()
    stream.close()


# ------------------------------------------------------------------ every verb's outputs


def _cli(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


WRITING_VERBS = {
    "book": ["book", "pig", "-o", "{}"],
    "render": ["render", "pig", "--sequence", "turn", "--format", "svg", "-o", "{}"],
    "sheets": ["sheets", "pig", "-o", "{}"],
    "diff": ["diff", "pig", PIG, "-o", "{}"],
    "simulate-json": ["simulate", "pig", "--games", "2", "--workers", "1", "--json", "{}"],
    "simulate-csv": ["simulate", "pig", "--games", "2", "--workers", "1", "--csv", "{}"],
    "simulate-coverage": ["simulate", "pig", "--games", "2", "--workers", "1", "--coverage", "{}"],
    "compare-json": ["compare", "pig", "pig", "--games", "2", "--workers", "1", "--json", "{}"],
}


@pytest.mark.parametrize("verb", list(WRITING_VERBS))
def test_every_writer_keeps_a_device_and_says_a_full_one(verb, tmp_path, capsys):
    null = _mknod(tmp_path, "null", 3)
    code, _out, err = _cli(capsys, *[a.replace("{}", str(null)) for a in WRITING_VERBS[verb]])
    assert code in (0, 1) and "Traceback" not in err and "internal error" not in err
    assert _is_char_device(null)
    full = _mknod(tmp_path, "full", 7)
    code, _out, err = _cli(capsys, *[a.replace("{}", str(full)) for a in WRITING_VERBS[verb]])
    assert code == 1 and "the disk is full" in err, err
    assert _leftovers(tmp_path, {"null", "full"}) == []


@pytest.mark.parametrize("verb", ["book", "simulate-json", "compare-json", "diff"])
def test_a_folder_target_is_exit_1(verb, tmp_path, capsys):
    code, _out, err = _cli(capsys, *[a.replace("{}", str(tmp_path)) for a in WRITING_VERBS[verb]])
    assert code == 1 and "it is a folder" in err and "internal error" not in err, err
    assert list(tmp_path.iterdir()) == []


def test_dash_is_standard_output_for_text(capsys):
    code, out, err = _cli(capsys, "simulate", "pig", "--games", "2", "--workers", "1", "--json", "-")
    assert code == 0 and json.loads(out)["games"] == 2 and "win rate" in err
    code, out, _ = _cli(capsys, "render", "pig", "--sequence", "turn", "--format", "dot", "-o", "-")
    assert code == 0 and out.lstrip().startswith(("digraph", "strict digraph"))
    code, out, _ = _cli(capsys, "book", "pig", "-o", "-")
    assert code == 0 and "<html" in out.lower()
    code, out, err = _cli(capsys, "compare", "pig", "pig", "--games", "2", "--workers", "1", "--json", "-")
    assert code == 0 and json.loads(out)["games"] == 2


def test_render_to_dash_needs_one_chart(capsys):
    code, out, err = _cli(capsys, "render", "pig", "--format", "svg", "-o", "-")
    assert code == 2 and "--sequence" in err and out == ""


def test_report_into_a_file_is_exit_1(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    code, _out, err = _cli(capsys, "simulate", "pig", "--games", "2", "--workers", "1", "--report",
                           str(tmp_path / "file"))
    assert code == 1 and "not a folder" in err


# ------------------------------------------------------------------ inputs: only regular files (item 9)


def test_read_regular_refuses_fifo_device_folder(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    null = _mknod(tmp_path, "zero", 5)
    for path, what in ((tmp_path / "fifo", "a FIFO"), (null, "a device"), (tmp_path, "a folder")):
        with pytest.raises(InputError, match=what):
            read_regular(str(path), 1000, "game log")


@pytest.mark.parametrize("argv", [["replay", "{}"], ["play", "pig", "--resume", "{}"],
                                  ["render", "pig", "--format", "dot", "--sequence", "turn", "-o", "-",
                                   "--coverage", "{}"]])
def test_a_fifo_or_device_as_log_save_or_coverage_is_refused(argv, tmp_path, capsys):
    os.mkfifo(tmp_path / "fifo")  # nobody writes to it: reading it would block for ever
    zero = _mknod(tmp_path, "zero", 5)  # never ends
    for given in (tmp_path / "fifo", zero, tmp_path):
        code, out, err = _cli(capsys, *[a.replace("{}", str(given)) for a in argv])
        assert code in (1, 2), (given, out, err)
        assert "not a" in out + err or "is a folder" in out + err, out + err


# ------------------------------------------------------------------ play --log (items 10 and 13)


def test_play_log_to_a_full_disk_is_exit_1_quietly_closed(tmp_path, capsys):
    full = _mknod(tmp_path, "full", 7)
    code, _out, err = _cli(capsys, "play", "pig", "--quiet", "--log", str(full))
    assert code == 1
    assert err.count("the disk is full") == 1 and "internal error" not in err and "Traceback" not in err


def test_play_log_to_a_device_stays_a_device(tmp_path, capsys):
    null = _mknod(tmp_path, "null", 3)
    code, _out, _err = _cli(capsys, "play", "pig", "--quiet", "--log", str(null))
    assert code == 0 and _is_char_device(null)


def test_play_log_to_standard_output(capsys):
    code, out, err = _cli(capsys, "play", "pig", "--seed", "2", "--log", "-")
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and records[0]["type"] == "header" and records[-1]["type"] == "end"
    assert "Pig: 2 players" in err


def test_play_into_a_closed_pipe_ends_quietly():
    proc = subprocess.Popen([sys.executable, "-m", "rulecraft.tools.cli.main", "play", "pig", "--seed", "3"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout.readline().startswith(b"Pig:")
    proc.stdout.close()  # like `| head -1`
    err = proc.stderr.read().decode()
    code = proc.wait(timeout=120)
    assert code in (0, 141) and err == "", (code, err)


def test_play_usage_error_before_anything_is_printed(capsys):
    code, out, err = _cli(capsys, "play", "pig", "--players", "9")
    assert code == 2 and out == "" and "2 to 6 players" in err


def test_simulate_usage_error_before_anything_is_printed(capsys):
    code, out, err = _cli(capsys, "simulate", "pig", "--games", "2", "--players", "9", "--workers", "1")
    assert code == 2 and out == "" and "2 to 6 players" in err


@pytest.mark.parametrize("verb", ["simulate-json", "simulate-csv", "simulate-coverage", "compare-json"])
def test_an_unwritable_target_is_said_before_the_games(verb, tmp_path, capsys):
    args = [a.replace("{}", str(tmp_path / "missing" / "out.json")) for a in WRITING_VERBS[verb]]
    args[args.index("2")] = "100000"  # would take minutes if the games were played first
    code, out, err = _cli(capsys, *args)
    assert code == 1 and "does not exist" in err and "win rate" not in out + err, err


# ------------------------------------------------------------------ real read-only and full file systems
# A small tmpfs mounted inside the test's folder (root only; skipped where mounting is not allowed),
# unmounted afterwards whatever happens.


@pytest.fixture
def tmpfs(tmp_path):
    mounted = []

    def mount(name: str, options: str) -> Path:
        where = tmp_path / name
        where.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], capture_output=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
        mounted.append(where)
        return where

    yield mount
    for where in reversed(mounted):
        subprocess.run(["umount", str(where)], capture_output=True)


def test_a_read_only_file_system_is_refused_for_real(tmpfs, capsys):
    ro = tmpfs("ro", "ro,size=64k")
    with pytest.raises(OutputError, match="read-only"):
        write_output(str(ro / "out.txt"), "x")
    code, _out, err = _cli(capsys, "book", "pig", "-o", str(ro / "rules.html"))
    assert code == 1 and "read-only" in err and list(ro.iterdir()) == []


def test_a_real_full_disk_keeps_the_old_file_and_leaves_no_temp(tmpfs):
    small = tmpfs("small", "size=64k")
    out = small / "out.bin"
    out.write_bytes(b"old")
    with pytest.raises(OutputError, match="the disk is full"):
        write_output(str(out), b"x" * 1_000_000)
    assert out.read_bytes() == b"old" and [p.name for p in small.iterdir()] == ["out.bin"]


def test_play_log_on_a_real_full_disk(tmpfs, capsys):
    small = tmpfs("small", "size=8k")
    code, _out, err = _cli(capsys, "play", "dml", "--quiet", "--log", str(small / "game.log"))
    assert code == 1 and err.count("the disk is full") == 1 and "internal error" not in err, err


def test_play_says_an_unwritable_log_before_the_game(tmp_path, capsys):
    for target in (tmp_path, tmp_path / "missing" / "game.log"):
        code, out, err = _cli(capsys, "play", "pig", "--log", str(target))
        assert code == 1 and out == "" and ("it is a folder" in err or "does not exist" in err), err
