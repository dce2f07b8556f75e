"""Where the chunks of a simulation run: local worker processes, a Dask cluster, or any executor; and stopping.

The interface an executor must have is the one of `concurrent.futures.Executor`, and only this much of it:

    future = executor.submit(fn, *args)   # fn and args are picklable (module-level function, plain data)
    future.result()                       # the return value, or raises the task's exception
    future.cancel()                       # best effort: a task not started yet does not run

`simulate(..., executor=X)` takes any such object (a ThreadPoolExecutor, Dask's `Client.get_executor()`, a ten-line
Ray adapter: docs/simulation.md) and never shuts it down (its owner does); at most `window` chunks are submitted and
not merged, so a long run holds few results and an interruption has few tasks to cancel.

Stopping (local processes):
- The parent turns SIGTERM into the `Stopped` exception (`sigterm_raises`, used by the CLI); Ctrl-C is Python's
  KeyboardInterrupt. Either way the runner cancels what is queued, kills its worker processes (SIGTERM, then SIGKILL),
  and raises `Interrupted` (games done of N, exit code 130 or 143).
- A worker ignores SIGINT (a Ctrl-C at the terminal reaches the whole process group; the parent decides), takes
  SIGTERM's default action, and runs a watchdog thread that ends the process when its parent is gone (`os.getppid()`
  changes when the parent dies, however it died, even by SIGKILL). Polling getppid works on every POSIX system and with
  every start method (a worker made by fork or spawn is re-parented when the parent dies; one made by a fork server is
  too, since the fork server ends with the parent); Linux's PR_SET_PDEATHSIG is tied to the thread that started the
  worker, which for a process pool is not always the main thread, and a pipe's EOF never comes while sibling workers
  hold inherited copies of its write end.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
import struct
import sys
import threading
import time
from collections import deque
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator, Optional

WATCHDOG_INTERVAL = 0.25  # seconds between a worker's checks that its parent is still there
CLUSTER_TIMEOUT = 10.0  # seconds to reach a Dask scheduler, and then to see at least one worker (--cluster-timeout)
CLOSE_WAIT = 2.0  # seconds given to closing the connection to a Dask scheduler


class Stopped(BaseException):
    """A signal asked the run to stop (raised in the main thread by the SIGTERM handler)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class Interrupted(Exception):
    """A simulation stopped early: `done` games of `total` had been played and counted."""

    def __init__(self, done: int, total: int, signum: int) -> None:
        super().__init__(done, total, signum)
        self.done, self.total, self.signum = done, total, signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    @property
    def cause(self) -> str:
        return "interrupted (Ctrl-C)" if self.signum == signal.SIGINT else f"stopped by {signal.Signals(self.signum).name}"


class ClusterError(Exception):
    """--cluster cannot be used: `code` is 2 when Dask is not installed, 1 when the scheduler cannot be used."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


@contextmanager
def sigterm_raises() -> Iterator[None]:
    """While inside, SIGTERM raises `Stopped` in the main thread (only there can a handler be set)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGTERM"):
        yield
        return

    def handler(signum, frame):
        raise Stopped(signum)

    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


# ----------------------------------------------------------------------------- local worker processes

def _worker_init(creator: Optional[int] = None) -> None:
    """Runs first in every local worker (module doc). `creator`: the pid of the parent that started it (None for a fork
    server's); a worker whose parent is gone already (re-parented before this ran) ends at once, never waits for ever."""
    parent = os.getppid() if os.name == "posix" else None
    if creator is not None and parent is not None and parent != creator:
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if parent is not None:
        threading.Thread(target=_watch_parent, args=(parent,), name="rulecraft-watchdog", daemon=True).start()


worker_init = _worker_init  # the same for the studio's simulation process (tools/studio/lab/work.py)


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCHDOG_INTERVAL)
    os._exit(1)


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the system says, else all of them)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def local_pool(workers: int) -> ProcessPoolExecutor:
    """Worker processes that ignore Ctrl-C, die on SIGTERM and end when the parent is gone."""
    context = multiprocessing.get_context()
    creator = None if context.get_start_method() == "forkserver" else os.getpid()
    return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_worker_init,
                               initargs=(creator,))


def kill_pool(pool: ProcessPoolExecutor, grace: float = 5.0) -> None:
    """Stop a local pool now: SIGTERM every worker, SIGKILL those still there after `grace`, then let the pool's
    manager thread see them gone and end (joined here, so that nothing of the pool is left for the interpreter's
    exit, which in Python 3.11 may otherwise race with the thread closing its wake-up pipe)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for p in procs:
        try:
            p.terminate()
        except (OSError, ValueError, AttributeError):
            pass
    deadline = time.monotonic() + grace
    for p in procs:
        try:
            p.join(max(0.0, deadline - time.monotonic()))
            if p.is_alive():
                p.kill()
                p.join(1.0)
        except (OSError, ValueError, AssertionError, AttributeError):
            pass
    closer = threading.Thread(target=_quiet_shutdown, args=(pool,), name="rulecraft-pool-shutdown", daemon=True)
    closer.start()
    closer.join(grace)


def _quiet_shutdown(pool: ProcessPoolExecutor) -> None:
    try:
        pool.shutdown(wait=True, cancel_futures=True)
    except Exception:  # a broken pool may complain on its way out; its workers are gone already
        pass


# ----------------------------------------------------------------------------- Dask

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
    roots = ("distributed", "asyncio", "tornado")
    for name in {*roots, *(name for name in list(logging.root.manager.loggerDict) if name.split(".")[0] in roots)}:
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _quiet_leftovers() -> None:
    """After Ctrl-C while connecting: what Dask's objects raise as they are collected (`Client.__del__` ...
    TimeoutError) is not printed; the run said in one line why it stopped (issue 38). RULECRAFT_DEBUG shows it."""
    if os.environ.get("RULECRAFT_DEBUG"):
        return
    earlier = sys.unraisablehook

    def hook(unraisable) -> None:
        obj = getattr(unraisable, "object", None)
        where = getattr(obj, "__module__", None) or getattr(type(obj), "__module__", "") or ""
        if not where.startswith(("distributed", "tornado")):
            earlier(unraisable)

    sys.unraisablehook = hook


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
        _quiet_leftovers()  # the client half made in that thread must not print a traceback as the process ends
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
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError("--cluster needs Dask distributed: pip install 'rulecraft[cluster]'", 2) from None
    _quiet_dask()
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


# ----------------------------------------------------------------------------- the runner

def run_ordered(ex: Executor, fn: Callable, tasks: Iterable[tuple], window: int,
                merge: Callable[[Any], None], cancel: bool = True) -> None:
    """Submit fn(*task) for every task, at most `window` at a time, and merge the results in task order.
    On any exception (an interruption too) the tasks not finished are cancelled before it propagates, unless
    `cancel` is false: a local pool about to be killed (`kill_pool`) must not have cancelled futures, since
    Python 3.11's pool then fails to mark them broken (InvalidStateError in its manager thread)."""
    pending: deque = deque()
    it = iter(tasks)
    try:
        for task in it:
            pending.append(ex.submit(fn, *task))
            if len(pending) >= window:
                break
        while pending:
            part = pending.popleft().result()
            for task in it:  # keep the window full before merging
                pending.append(ex.submit(fn, *task))
                break
            merge(part)
    except BaseException:
        if cancel:
            bounded(lambda: [f.cancel() for f in pending], "rulecraft-cancel")
        raise


def interrupted_signum(exc: BaseException) -> int:
    return exc.signum if isinstance(exc, Stopped) else signal.SIGINT


@contextmanager
def cli_runs(cluster_address: str | None, timeout: Optional[float] = None) -> Iterator[dict]:
    """For `simulate` and `compare`: SIGTERM stops the run while inside; yields the keyword arguments for
    `simulate()` that say where games run ({} locally; the executor and its size with --cluster)."""
    with sigterm_raises():
        if cluster_address is None:
            yield {}
            return
        if sys.stderr.isatty():  # a wait of up to the time-out: say what it is waiting for
            print(f"connecting to the Dask scheduler at {cluster_address} ...", file=sys.stderr, flush=True)
        with cluster(cluster_address, timeout) as (ex, threads):
            yield {"executor": ex, "workers": threads}


def stop_code(prog: str, exc: BaseException, what: str = "") -> int:
    """Print what stopped a run (a line on standard error, no traceback); the exit code."""
    if sys.stderr.isatty():
        print(file=sys.stderr)  # after the progress bar's line
    if isinstance(exc, ClusterError):
        print(f"{prog}: {exc}", file=sys.stderr)
        return exc.code
    if isinstance(exc, Interrupted):
        print(f"{prog}: {exc.cause} after {exc.done:,} of {exc.total:,} games{what}; nothing written", file=sys.stderr)
        return exc.exit_code
    signum = interrupted_signum(exc)
    cause = Interrupted(0, 0, signum).cause
    print(f"{prog}: {cause}{what}; nothing written", file=sys.stderr)
    return 128 + signum
