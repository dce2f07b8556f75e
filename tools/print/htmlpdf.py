"""HTML to PDF with headless Chromium: the player aid and the printed book are web pages printed by a browser.

Chromium prints CSS (columns, `break-after: avoid`, `@page` sizes) the way a person sees the
page, and it is one package on every platform (`apt-get install chromium`, `brew install
chromium`); `make setup` installs it where it can. It runs in a fresh profile, without GPU, in
its own process group (ended whatever happens), with networking off by its flags (OFFLINE) and,
where the system lets a user make one, in a network namespace of its own. It is driven over a
pipe with the DevTools protocol, so one browser prints several pages (`Printer`).
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import sys
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


# fd 3 and fd 4 of the browser: the two ends given (by number) before its command
PLACE_PIPES = ("import os, sys\n"
               "for new, old in ((3, int(sys.argv[1])), (4, int(sys.argv[2]))):\n"
               "    os.dup2(old, new)\n"
               "    os.close(old)\n"
               "os.execv(sys.argv[3], sys.argv[3:])")


class PrintError(RuntimeError):
    """Chromium is missing or failed; the message says which and what to do, in our words. `detail` keeps the
    last line Chromium wrote on its error output (often a harmless complaint, e.g. of a missing D-Bus), for a
    debug log, never for the person's message."""

    def __init__(self, message: str, detail: str = ""):
        super().__init__(message)
        self.detail = detail


# what went wrong, and what to try, for each way the browser fails
TRY = "try again; if it keeps failing, name another Chromium or Chrome with RULECRAFT_CHROMIUM=PATH"
FAILED = {"timed out": "Chromium did not finish printing the page within {timeout:g} seconds (a busy machine "
                       "or a stuck browser): " + TRY,
          "it stopped": "Chromium stopped before it printed the page: " + TRY,
          "an empty PDF": "Chromium printed an empty PDF: " + TRY,
          "refused": "Chromium refused to print the page: " + TRY}


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
    with Printer(timeout) as printer:
        return printer.print(html)


class Printer:
    """One headless Chromium that prints pages one after another: starting the browser costs more than printing a
    page, so a document printed again more compactly (the aid) starts it once. It is driven with the DevTools
    protocol over a pipe (`--remote-debugging-pipe`: no port is opened), in a fresh profile, with the OFFLINE flags
    and its own network where it can have one, in its own process group, ended with all its helpers on close."""

    def __init__(self, timeout: float = 120.0):
        exe = find_chromium()
        if exe is None:
            raise PrintError(HINT)
        self.timeout, self._ids, self._buf, self._pages = timeout, 0, b"", 0
        self._tmp = tempfile.TemporaryDirectory(prefix="rulecraft-print-")
        to_browser, self._send = _high_pipe()
        self._recv, from_browser = _high_pipe()
        self._err = open(os.path.join(self._tmp.name, "stderr"), "w+b")
        # the browser reads the protocol on fd 3 and writes it on fd 4: a small Python puts the pipes there and
        # starts it (a preexec function would not be safe in a process with threads, as the studio is; a POSIX
        # shell names only the descriptors below 10)
        args = [sys.executable, "-I", "-S", "-c", PLACE_PIPES, str(to_browser), str(from_browser), *_own_network(),
                exe, "--headless", "--no-sandbox", "--disable-gpu", *OFFLINE,
                f"--user-data-dir={os.path.join(self._tmp.name, 'profile')}", "--remote-debugging-pipe", "about:blank"]
        # its own temporary files (a folder `org.chromium.Chromium.XXXXXX` for its socket) go into ours: it is killed
        # when done, before it could remove them, and ours goes whole (session 19: one folder was left for each print)
        env = {**os.environ, "TMPDIR": self._tmp.name, "TMP": self._tmp.name, "TEMP": self._tmp.name}
        try:
            self._proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._err,
                                          pass_fds=(to_browser, from_browser), start_new_session=True, env=env)
        except OSError as exc:
            self._close_fds()
            raise PrintError(f"Chromium did not start: {exc}") from None
        finally:
            os.close(to_browser)
            os.close(from_browser)

    def __enter__(self) -> "Printer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def print(self, html: str) -> bytes:
        """The PDF of one page of HTML, printed as `--print-to-pdf` prints it: the page's @page size, backgrounds,
        no header or footer."""
        import base64
        import time

        deadline = time.monotonic() + self.timeout
        self._pages += 1
        page = os.path.join(self._tmp.name, f"page{self._pages}.html")
        try:
            with open(page, "w", encoding="utf-8") as fh:
                fh.write(html)
        except OSError as exc:  # a full temporary folder, a file size limit: it was an internal error (exit 3)
            from rulecraft.files import os_error_text

            raise PrintError(os_error_text(page, exc) + " (the page to print, in the temporary folder)") from None
        target = self._call(deadline, "Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self._call(deadline, "Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self._call(deadline, "Page.enable", {}, session)
        self._call(deadline, "Page.navigate", {"url": "file://" + page}, session, until="Page.loadEventFired")
        data = self._call(deadline, "Page.printToPDF", {"printBackground": True, "preferCSSPageSize": True,
                                                        "displayHeaderFooter": False}, session)["data"]
        self._call(deadline, "Target.closeTarget", {"targetId": target})
        pdf = base64.b64decode(data)
        if not pdf:
            raise self._failed("an empty PDF")
        return pdf

    def close(self) -> None:
        self._stop()
        self._close_fds()

    def _stop(self) -> None:
        proc = getattr(self, "_proc", None)
        if proc is not None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the browser's helpers too
            except ProcessLookupError:
                pass
            proc.wait()
            self._proc = None

    def _close_fds(self) -> None:
        for fd in (self._send, self._recv):
            try:
                os.close(fd)
            except OSError:
                pass
        self._send = self._recv = -1
        self._err.close()
        self._tmp.cleanup()

    def _call(self, deadline: float, method: str, params: dict, session: str | None = None,
              until: str | None = None) -> dict:
        """Send one command and wait for its answer (and, with `until`, for that event of the same session)."""
        import json

        self._ids += 1
        message = {"id": self._ids, "method": method, "params": params, **({"sessionId": session} if session else {})}
        try:
            os.write(self._send, json.dumps(message).encode("utf-8") + b"\0")
        except OSError:
            raise self._failed("it stopped") from None
        result, seen = None, until is None
        while result is None or not seen:
            reply = json.loads(self._read(deadline))
            if reply.get("id") == self._ids:
                if "error" in reply:
                    raise self._failed("refused", str(reply["error"].get("message", reply["error"])))
                result = reply.get("result", {})
            elif until and reply.get("method") == until and reply.get("sessionId") == session:
                seen = True
        return result

    def _read(self, deadline: float) -> bytes:
        import select
        import time

        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._recv], [], [], left)[0]:
                raise self._failed("timed out")
            chunk = os.read(self._recv, 1 << 20)
            if not chunk:
                raise self._failed("it stopped")
            self._buf += chunk
        message, self._buf = self._buf.split(b"\0", 1)
        return message

    def _failed(self, why: str, said_by_chromium: str = "") -> PrintError:
        """The error of a failed print, said in our words (FAILED); Chromium's own words (its protocol error, else
        the last line of its error output) go to the debug log (logger 'rulecraft.print') and `PrintError.detail`."""
        import logging

        self._stop()
        self._err.seek(0)
        last = self._err.read().decode("utf-8", "replace").strip().splitlines()
        detail = said_by_chromium or (last[-1] if last else "")
        if detail:
            logging.getLogger("rulecraft.print").debug("Chromium (%s): %s", why, detail)
        return PrintError(FAILED[why].format(timeout=self.timeout), detail)


def _high_pipe() -> tuple[int, int]:
    """A pipe whose two ends are above the numbers the browser reads and writes (3 and 4), so putting one end
    there never overwrites the other."""
    import fcntl

    read, write = os.pipe()
    out = tuple(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (read, write))
    os.close(read)
    os.close(write)
    return out
