"""Where the chunks of a simulation run: local worker processes or any executor (a Dask cluster: cluster.py); stopping.

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

import os
import signal
import sys
import threading
import time
from collections import deque
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Optional

from rulecraft.tools.simulate.cluster import ClusterError, bounded, cluster, dask_client_class

if TYPE_CHECKING:
    from concurrent.futures import Executor, ProcessPoolExecutor

WATCHDOG_INTERVAL = 0.25  # seconds between a worker's checks that its parent is still there


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
    import multiprocessing  # (here, with the pool: a run of one worker, `--workers 1`, imports neither, some 85 M
    from concurrent.futures import ProcessPoolExecutor  # instructions of start-up: sockets, pickle, queues)

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
    _close_result_writer(pool)
    closer = threading.Thread(target=_quiet_shutdown, args=(pool,), name="rulecraft-pool-shutdown", daemon=True)
    closer.start()
    closer.join(grace)


def _close_result_writer(pool: ProcessPoolExecutor) -> None:
    """The workers are gone: close this process's own write end of the pool's result pipe. A worker killed while it
    wrote a result leaves half a message in the pipe, and the pool's manager thread, reading it, waits for the rest
    for ever (the interpreter's exit joins that thread: `simulate` never ended). With no writer left it reads the end
    of the pipe instead, marks the pool broken and ends. The parent never writes there itself."""
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    try:
        if writer is not None:
            writer.close()
    except OSError:
        pass


def _quiet_shutdown(pool: ProcessPoolExecutor) -> None:
    try:
        pool.shutdown(wait=True, cancel_futures=True)
    except Exception:  # a broken pool may complain on its way out; its workers are gone already
        pass


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
        dask_client_class()  # imported first: "connecting" is said when the wait on the network starts
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
