"""HTML to PDF with headless Chromium: the player aid and the printed book are web pages printed by a browser.

Chromium prints CSS (columns, `break-after: avoid`, `@page` sizes) the way a person sees the
page, and it is one package on every platform (`apt-get install chromium`, `brew install
chromium`); `make setup` installs it where it can. It runs in a fresh profile, without network
or GPU, in its own process group, which is ended whatever happens.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from typing import Optional

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless_shell")
HINT = ("headless Chromium prints the PDF and is not installed (Debian/Ubuntu: apt-get install chromium; "
        "macOS: brew install --cask chromium; or `make setup`)")


class PrintError(RuntimeError):
    """Chromium is missing or failed; the message says which and what to do."""


def find_chromium() -> Optional[str]:
    override = os.environ.get("RULECRAFT_CHROMIUM")
    if override:
        return shutil.which(override)
    for name in NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def html_to_pdf(html: str, timeout: float = 120.0) -> bytes:
    """The PDF Chromium prints from `html` (its @page rules give the paper and margins)."""
    exe = find_chromium()
    if exe is None:
        raise PrintError(HINT)
    with tempfile.TemporaryDirectory(prefix="rulecraft-print-") as tmp:
        page, out = os.path.join(tmp, "page.html"), os.path.join(tmp, "page.pdf")
        with open(page, "w", encoding="utf-8") as fh:
            fh.write(html)
        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-extensions", f"--user-data-dir={os.path.join(tmp, 'profile')}",
                "--no-pdf-header-footer", f"--print-to-pdf={out}", "file://" + page]
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        try:
            _out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            err = b"timed out"
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the browser's helpers too
            except ProcessLookupError:
                pass
            proc.wait()
        if not os.path.exists(out) or os.path.getsize(out) == 0:
            last = (err or b"").decode("utf-8", "replace").strip().splitlines()
            raise PrintError("Chromium did not print the page" + (f": {last[-1]}" if last else ""))
        with open(out, "rb") as fh:
            return fh.read()
