"""A Dask cluster as the executor of a simulation (`--cluster ADDRESS`): the address checked, the scheduler probed,
the client made in a thread of its own and closed within a bound, Dask's own logging kept quiet.

Every wait here is bounded: a scheduler that stops answering, or a Ctrl-C while connecting, must not hold a run
(CLUSTER_TIMEOUT to connect and to see a worker, CLOSE_WAIT for each clean-up that talks to the scheduler).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from contextlib import contextmanager
from concurrent.futures import Executor
from typing import Any, Callable, Iterator, Optional

CLUSTER_TIMEOUT = 10.0  # seconds to reach a Dask scheduler, and then to see at least one worker (--cluster-timeout)
CLOSE_WAIT = 2.0  # seconds given to closing the connection to a Dask scheduler


class ClusterError(Exception):
    """--cluster cannot be used: `code` is 2 when Dask is not installed, 1 when the scheduler cannot be used."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


CLUSTER_SCHEMES = ("tcp", "tls")  # the Dask comm protocols that reach a scheduler over a network


def cluster_address(address: str) -> tuple[str, str, str, int]:
    """(address as Dask takes it, scheme, host, port) of a --cluster ADDRESS; ClusterError (code 1) when it is
    not one: 'tcp://HOST:PORT' or 'tls://HOST:PORT', or 'HOST:PORT' for tcp."""
    text = address.strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    scheme = scheme.lower()
    if scheme not in CLUSTER_SCHEMES:
        why = ("an HTTP address (the dashboard's?)" if scheme in ("http", "https")
               else f"the scheme '{scheme}' is not one Dask reaches a scheduler with")
        raise ClusterError(f"--cluster {_cut(address)!r} is not a Dask scheduler address: {why}; "
                           "give tcp://HOST:PORT (the scheduler's port, 8786 by default)", 1)
    host, colon, port = rest.rpartition(":")
    host = host.strip("[]")
    if not colon or not host or "/" in host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ClusterError(f"--cluster {_cut(address)!r} is not a Dask scheduler address: give tcp://HOST:PORT "
                           "with a host and a port number (8786 by default)", 1)
    try:  # what the socket layer does with a name: a label over 63 characters or a name of 100,000 was exit 3
        host.encode("idna")
        ok = len(host) <= 253
    except UnicodeError:
        ok = False
    if not ok:
        raise ClusterError(f"--cluster {_cut(address)!r} is not a Dask scheduler address: the host is not a name a "
                           "network resolves (at most 253 characters, each part between dots at most 63)", 1)
    return f"{scheme}://{rest}", scheme, host, int(port)


def _cut(address: str) -> str:
    return address if len(address) <= 80 else address[:77] + "..."


def probe_scheduler(address: str, scheme: str, host: str, port: int, timeout: float) -> None:
    """Check that something at `address` answers as a Dask scheduler, within `timeout` seconds. Dask's own client may
    wait for ever on a port that speaks another protocol (an HTTP server never answers a client that says nothing), so
    the first words are read here: a Dask scheduler sends its handshake frame as soon as a connection is accepted (over
    tcp: 8 bytes of total length, then 8 bytes giving the number of frames). Over tls only the connection is checked."""
    import socket  # (here: a local run imports neither this nor `struct`)
    import struct

    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except socket.timeout:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: no answer within {timeout:g} s", 1) from None
    except OSError as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {exc.strerror or exc}", 1) from None
    with sock:
        if scheme != "tcp":
            return
        sock.settimeout(timeout)
        head = b""
        try:
            while len(head) < 16:
                more = sock.recv(16 - len(head))
                if not more:
                    break
                head += more
        except socket.timeout:
            raise ClusterError(f"{address} did not answer as a Dask scheduler within {timeout:g} s "
                               "(is it the scheduler's port? --cluster-timeout gives it longer)", 1) from None
        except OSError as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: {exc.strerror or exc}", 1) from None
    total, frames = struct.unpack("<QQ", head) if len(head) == 16 else (0, 0)
    if not (0 < frames <= 64 and 8 < total < 1 << 24):
        what = "speaks HTTP" if head.startswith(b"HTTP/") else "closed the connection" if not head else "answered"
        raise ClusterError(f"{address} {what}, but not as a Dask scheduler (is it the scheduler's port?)", 1)


def _quiet_dask() -> None:
    """Dask logs what it meets (a refused connection, a connection closed while tasks are cancelled) with
    tracebacks of its own; a run says in one line what went wrong, so they are noise to a user. Every logger
    under those names: Dask gives some a level of their own (`tornado.application`, whose traceback Ctrl-C showed)."""
    import logging  # (here: Dask imports it anyway, and a local run needs it not)

    roots = ("distributed", "asyncio", "tornado")
    for name in {*roots, *(name for name in list(logging.root.manager.loggerDict) if name.split(".")[0] in roots)}:
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _quiet_leftovers() -> None:
    """From the start of a cluster run: what Dask's objects raise as they are collected (`Client.__del__` ...
    TimeoutError, a client whose bounded close had not finished; a `Future.__del__` collected while the games go on,
    or as a Ctrl-C lands) is not printed; the run says in one line how it ended (issue 38). RULECRAFT_DEBUG shows it."""
    earlier = sys.unraisablehook
    if os.environ.get("RULECRAFT_DEBUG") or getattr(earlier, "rulecraft_quiet", False):
        return

    def hook(unraisable) -> None:
        obj = getattr(unraisable, "object", None)
        where = getattr(obj, "__module__", None) or getattr(type(obj), "__module__", "") or ""
        if not where.startswith(("distributed", "tornado")):
            earlier(unraisable)

    hook.rulecraft_quiet = True  # type: ignore[attr-defined] - installed once, however many runs
    sys.unraisablehook = hook


HELD_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def dask_client_class() -> type:
    """Dask's Client class, imported with Ctrl-C and SIGTERM held until the import is done (about a second the first
    time). A KeyboardInterrupt that lands inside an import does not come out as itself: CPython's `from X import Y`
    can turn it into "TypeError: expected a message argument" (exit 3, an internal error, seen in CI), and Dask is
    left half imported. A signal held is sent again once the import is over, so it stops the run as it would anywhere
    else. Outside the main thread (the studio's worker) signals are not ours to hold."""
    held: list[int] = []
    earlier: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in HELD_SIGNALS:
            handler = signal.getsignal(signum)
            if callable(handler):  # a Python handler (Ctrl-C's default, sigterm_raises): held; SIG_DFL/SIG_IGN left
                earlier[signum] = handler
                signal.signal(signum, lambda got, frame: held.append(got))
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError("--cluster needs Dask distributed: pip install 'rulecraft[cluster]'", 2) from None
    finally:
        for signum, handler in earlier.items():
            signal.signal(signum, handler)
    for signum in held[:1]:
        signal.raise_signal(signum)  # the handler put back runs now: KeyboardInterrupt, or the SIGTERM stop
    return Client


def _connect(client_class, address: str, timeout: float):
    """Dask's Client, made in a thread of its own so that a scheduler that stops answering half-way cannot
    hold the run past `timeout` (plus a little), and Ctrl-C stops the wait at once, leaving no client open
    whenever it comes (of the two threads, the one the lock lets through second closes it)."""
    box: dict = {}
    lock = threading.Lock()

    def make() -> None:
        try:
            client = client_class(address, timeout=timeout, set_as_default=False)
        except BaseException as exc:  # reported by the waiting thread
            box["error"] = exc
            return
        with lock:
            box["client"] = client
            if not box.get("abandoned"):
                return
        bounded(lambda: client.close(timeout=CLOSE_WAIT), "rulecraft-dask-close")  # Ctrl-C came first

    worker = threading.Thread(target=make, name="rulecraft-dask-connect", daemon=True)
    try:
        worker.start()  # (inside the try: a Ctrl-C as it returns must not leave the client to nobody)
        worker.join(timeout + 2.0)  # a Ctrl-C interrupts this join in the main thread
    except BaseException:
        with lock:
            box["abandoned"] = True
            made = box.get("client")
        if made is not None:  # made before the Ctrl-C was seen here
            bounded(lambda: made.close(timeout=CLOSE_WAIT), "rulecraft-dask-close")
        _quiet_leftovers()  # (in already when called from cluster()) the half-made client must not print a traceback
        raise
    if worker.is_alive():
        raise ClusterError(f"{address} did not answer as a Dask scheduler within {timeout:g} s", 1)
    if "error" in box:
        raise ClusterError(f"cannot use the Dask scheduler at {address}: {_first_line(box['error'])}", 1)
    return box["client"]


@contextmanager
def cluster(address: str, timeout: Optional[float] = None) -> Iterator[tuple[Executor, int]]:
    """(executor, number of worker threads) of the Dask scheduler at `address`; ClusterError when it cannot be used."""
    timeout = CLUSTER_TIMEOUT if timeout is None else timeout
    target, scheme, host, port = cluster_address(address)
    Client = dask_client_class()
    _quiet_dask()
    _quiet_leftovers()  # in for the whole run: a future or client collected at any time must not print a traceback
    probe_scheduler(address, scheme, host, port, timeout)
    client = _connect(Client, target, timeout)
    try:
        try:
            client.wait_for_workers(1, timeout=timeout)
        except Exception:
            raise ClusterError(f"the Dask scheduler at {address} has no workers (waited {timeout:g} s)", 1) from None
        threads = sum(client.nthreads().values()) or 1
        ex = client.get_executor(pure=False)
        try:
            yield ex, threads
        finally:
            bounded(lambda: ex.shutdown(wait=False), "rulecraft-dask-shutdown")  # cancels what is still queued
    finally:
        bounded(lambda: client.close(timeout=CLOSE_WAIT), "rulecraft-dask-close")


def bounded(work: Callable[[], Any], name: str) -> None:
    """Clean-up that talks to a Dask scheduler (cancelling tasks, closing the client), given CLOSE_WAIT seconds in
    a thread of its own: after Ctrl-C the run must end now, not when the scheduler has acknowledged every
    cancelled task. Its failures are nobody's concern (the scheduler went away first, or it timed out)."""

    def quietly() -> None:
        try:
            work()
        except BaseException:
            pass

    worker = threading.Thread(target=quietly, name=name, daemon=True)
    worker.start()
    worker.join(CLOSE_WAIT)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
