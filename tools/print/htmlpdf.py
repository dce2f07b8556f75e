"""HTML to PDF with headless Chromium: the player aid and the printed book are web pages printed by a browser.

Chromium prints CSS (columns, `break-after: avoid`, `@page` sizes) the way a person sees the
page, and it is one package on every platform (`apt-get install chromium`, `brew install
chromium`); `make setup` installs it where it can. It runs in a fresh profile, without GPU, in
its own process group (ended whatever happens), with networking off by its flags (OFFLINE) and,
where the system lets a user make one, in a network namespace of its own.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import tempfile
from typing import Optional

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless_shell")
HINT = ("headless Chromium prints the PDF and is not installed (Debian/Ubuntu: apt-get install chromium; "
        "macOS: brew install --cask chromium; or `make setup`)")


# Networking really off, and no background services: no host name resolves, every connection goes
# to a proxy on a closed local port (loopback included: <-loopback> takes it out of the bypass list),
# QUIC is off, and none of the updaters, sync, metrics, safe browsing or field trials start.
OFFLINE = ("--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
           "--disable-quic", "--dns-prefetch-disable", "--no-first-run", "--no-default-browser-check",
           "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
           "--disable-default-apps", "--disable-domain-reliability", "--disable-client-side-phishing-detection",
           "--disable-breakpad", "--disable-crash-reporter", "--metrics-recording-only", "--no-pings",
           "--safebrowsing-disable-auto-update", "--disable-field-trial-config", "--no-service-autorun",
           "--password-store=basic", "--use-mock-keychain",
           "--disable-features=OptimizationHints,MediaRouter,Translate,AutofillServerCommunication,"
           "CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions,AsyncDns")


class PrintError(RuntimeError):
    """Chromium is missing or failed; the message says which and what to do."""


@functools.lru_cache(maxsize=None)
def _own_network() -> tuple[str, ...]:
    """`unshare -rn --` where the system lets a user make a network namespace: Chromium then has no network
    at all (not even its IPv6 reachability probe reaches out). Elsewhere the flags above are the guard."""
    exe = shutil.which("unshare")
    if exe is None:
        return ()
    try:
        ok = subprocess.run([exe, "-rn", "true"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ()
    return (exe, "-rn", "--") if ok.returncode == 0 else ()


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
        args = [*_own_network(), exe, "--headless", "--no-sandbox", "--disable-gpu", *OFFLINE,
                f"--user-data-dir={os.path.join(tmp, 'profile')}",
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
