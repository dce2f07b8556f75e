"""What the studio's browser tests share: Chromium found (or the module skipped, saying why), `rulecraft studio`
started as a command and its printed lines read, one Playwright browser per module, and the screenshots written
for docs/studio.md when RULECRAFT_STUDIO_SCREENSHOTS names a folder."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import contextmanager
from typing import Callable, Iterator

import pytest

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (make setup installs it)")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    pytest.skip("no Chromium on this machine (make setup installs Debian's chromium): the studio's browser tests "
                "are skipped", allow_module_level=True)
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync"]
SHOTS = os.environ.get("RULECRAFT_STUDIO_SCREENSHOTS")
URL = re.compile(r"^http://127\.0\.0\.1:\d+/\?token=\S+$")


@contextmanager
def studio_server(args: list[str], enough: Callable[[list[str]], bool] = lambda got: len(got) >= 1) -> Iterator[list[str]]:
    """`rulecraft studio ARGS` as a child process: yields the lines it printed on standard output once `enough` of
    them came (the studio's URL first) and its page answers. Stopped on leaving."""
    proc = subprocess.Popen([sys.executable, "-m", "rulecraft.tools.cli.main", "studio", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    got: list[str] = []

    def read() -> None:
        while not enough(got):
            line = proc.stdout.readline() if proc.stdout else ""
            if not line:
                return
            got.append(line.strip())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(60)
    if not got or not enough(got) or not URL.match(got[0]):
        proc.kill()
        pytest.fail(f"rulecraft studio printed {got!r} {proc.stderr.read() if proc.poll() is not None and proc.stderr else ''}")
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
