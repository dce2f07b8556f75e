"""What the studio's browser tests share: Chromium found (or the module skipped, saying why), `rulecraft studio`
started as a command (forked from a process with the studio imported: tests/cli_fork.py) and its printed lines read, one Playwright browser per module, and the screenshots written
for docs/studio.md when RULECRAFT_STUDIO_SCREENSHOTS names a folder."""

from __future__ import annotations

import os
import re
import shutil
import io
import subprocess
import threading
import time
import urllib.request
from contextlib import contextmanager
from typing import Callable, Iterator

import pytest

from cli_fork import spawn_cli

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (make setup installs it)")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    pytest.skip("no Chromium on this machine (make setup installs Debian's chromium): the studio's browser tests "
                "are skipped", allow_module_level=True)
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync"]
SHOTS = os.environ.get("RULECRAFT_STUDIO_SCREENSHOTS")
STUDIO_MODULES = ("rulecraft.tools.studio.app", "uvicorn")  # what `rulecraft studio` imports besides the engine
URL = re.compile(r"^http://127\.0\.0\.1:\d+/\?token=\S+$")


@contextmanager
def studio_server(args: list[str], enough: Callable[[list[str]], bool] = lambda got: len(got) >= 1) -> Iterator[list[str]]:
    """`rulecraft studio ARGS` as a child process: yields the lines it printed on standard output once `enough` of
    them came (the studio's URL first) and its page answers. Stopped on leaving. The child is forked from a process
    that has the studio's modules imported (tests/cli_fork.py: about 2 s of CPU saved per server); the test is about
    the page, not the command's start, which tests/test_studio_server.py covers."""
    proc = spawn_cli(["studio", *args], preload=STUDIO_MODULES)
    out = io.TextIOWrapper(proc.stdout, encoding="utf-8")
    got: list[str] = []

    def read() -> None:
        while not enough(got):
            line = out.readline()
            if not line:
                return
            got.append(line.strip())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(60)
    if not got or not enough(got) or not URL.match(got[0]):
        proc.kill()
        pytest.fail(f"rulecraft studio printed {got!r} "
                    f"{proc.stderr.read().decode(errors='replace') if proc.poll() is not None else ''}")
    deadline = time.monotonic() + 60  # the port is bound when the URL is printed; it answers once uvicorn is up
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(got[0], timeout=5).close()
            break
        except OSError:
            time.sleep(0.1)
    try:
        yield got
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdin, out, proc.stderr):
            pipe.close()


@contextmanager
def chromium() -> Iterator:
    """One Playwright Chromium (the machine's own); a Chromium that does not start skips the test, saying why."""
    with sync_api.sync_playwright() as p:
        try:
            b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        except Exception as exc:  # noqa: BLE001 - a Chromium that does not start: say so, skip
            pytest.skip(f"Chromium did not start under Playwright ({str(exc).splitlines()[0]})")
        try:
            yield b
        finally:
            b.close()


def shot(page, name: str) -> None:
    """A screenshot for docs/studio.md, when RULECRAFT_STUDIO_SCREENSHOTS names the folder to write it to."""
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        page.screenshot(path=os.path.join(SHOTS, name))
