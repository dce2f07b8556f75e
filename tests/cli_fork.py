"""`run_cli` and `spawn_cli`: `rulecraft ARGS` as a child process, as `python -c "...main(sys.argv[1:])"` runs it, but
forked from a process that has already imported the command line (a "zygote"), so a test that starts the command
many times pays Python's start and the engine's imports (about 0.3 s of CPU each, more for a language server or
Dask) once per test process, not once per run.

What the child gets is what a fresh process gets: its own process (its pid, its exit code, its memory cap: RLIMIT_AS
is set in the child, over the imports a fresh run would also make, so a cap is if anything tighter), its own working
folder, environment and argv, the stdin, stdout and stderr it is given (no other file of the test process or the
zygote), default signal handlers, and Python's normal exit (atexit, buffers flushed). An uncaught exception prints its
traceback and exits 1, as Python does. Use `subprocess` instead where the test is about the process itself (a
terminal, signals sent to its group, its first imports).
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional

_ZYGOTE = r'''
import importlib, json, os, select, signal, socket, sys
from rulecraft.tools.cli.main import main
import rulecraft.loader, rulecraft.runtime.game  # what nearly every command loads: imported once, here
for _name in sys.argv[2:]:  # what the caller's commands load besides (e.g. distributed, for --cluster)
    importlib.import_module(_name)


def _child(req, fds):
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    os.closerange(3, os.sysconf("SC_OPEN_MAX") if os.sysconf("SC_OPEN_MAX") > 0 else 4096)
    os.chdir(req["cwd"])
    os.environ.clear()
    os.environ.update(req["env"])
    if req["memory"]:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (req["memory"], req["memory"]))
    sys.argv = ["-c", *req["args"]]
    sys.exit(main(req["args"]))  # Python's own exit: atexit, buffers flushed; a traceback and 1 if main raises


def _serve():
    channel = socket.socket(fileno=int(sys.argv[1]))
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    waiting = {}  # pid -> the socket its exit status is told on
    while True:
        ready, _, _ = select.select([channel, wake_r], [], [])
        if wake_r in ready:
            os.read(wake_r, 4096)
            while waiting:
                pid, status = os.waitpid(-1, os.WNOHANG)
                if pid == 0:
                    break
                told = waiting.pop(pid, None)
                if told is not None:
                    try:
                        told.sendall(json.dumps({"status": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
                    except OSError:
                        pass
                    told.close()
        if channel in ready:
            try:
                msg, fds, _flags, _addr = socket.recv_fds(channel, 1 << 20, 4)
            except OSError:
                return None
            if not msg:
                return None
            req = json.loads(msg)
            told = socket.socket(fileno=fds[3])
            pid = os.fork()
            if pid == 0:
                return req, fds[:3]
            for fd in fds[:3]:
                os.close(fd)
            told.sendall(json.dumps({"pid": pid}).encode() + b"\n")
            waiting[pid] = told


got = _serve()
if got is not None:
    _child(*got)
'''


class _Zygote:
    def __init__(self, preload: tuple = ()) -> None:
        self._channel, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.proc = subprocess.Popen([sys.executable, "-c", _ZYGOTE, str(theirs.fileno()), *preload],
                                     pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL)
        theirs.close()

    def spawn(self, req: dict, stdio: tuple) -> "Forked":
        mine, theirs = socket.socketpair()
        socket.send_fds(self._channel, [json.dumps(req).encode()], [*stdio, theirs.fileno()])
        theirs.close()
        return Forked(req["args"], mine)

    def close(self) -> None:
        self._channel.close()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Forked:
    """A child `spawn_cli` started: what the tests use of `subprocess.Popen` (pid, stdin, stdout, stderr, poll,
    wait, kill, terminate, send_signal, returncode)."""

    stdin = stdout = stderr = None

    def __init__(self, args: list, told: socket.socket) -> None:
        self.args = args
        self._told = told
        self._buffer = b""
        self.returncode: Optional[int] = None
        self.pid = self._line(None)["pid"]

    def _line(self, timeout: Optional[float]) -> Optional[dict]:
        while b"\n" not in self._buffer:
            if timeout is not None and not select.select([self._told], [], [], timeout)[0]:
                return None
            chunk = self._told.recv(4096)
            if not chunk:
                raise RuntimeError("the command line's zygote stopped")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def poll(self) -> Optional[int]:
        return self.wait(0) if self.returncode is None and select.select([self._told], [], [], 0)[0] else self.returncode

    def wait(self, timeout: Optional[float] = None) -> int:
        if self.returncode is None:
            done = self._line(timeout)
            if done is None:
                raise subprocess.TimeoutExpired(self.args, timeout)
            self.returncode = done["status"]
            self._told.close()
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


_zygotes: dict[tuple, _Zygote] = {}


def _zygote(preload: tuple) -> _Zygote:
    zygote = _zygotes.get(preload)
    if zygote is None or zygote.proc.poll() is not None:
        zygote = _zygotes[preload] = _Zygote(preload)
        atexit.register(zygote.close)
    return zygote


def _request(args: list, cwd, env, memory) -> dict:
    return {"args": [str(a) for a in args], "cwd": str(cwd or os.getcwd()),
            "env": dict(os.environ if env is None else env), "memory": memory or 0}


def spawn_cli(args: list, *, cwd: Path | str | None = None, env: Optional[Mapping[str, str]] = None,
              memory: Optional[int] = None, preload: tuple = ()) -> Forked:
    """`rulecraft *args` started as a child process (forked, see above) with pipes for its stdin, stdout and
    stderr (binary, unbuffered writes: as `subprocess.Popen(..., stdin=PIPE, stdout=PIPE, stderr=PIPE)`)."""
    pipes = [os.pipe() for _ in range(3)]
    theirs = (pipes[0][0], pipes[1][1], pipes[2][1])
    try:
        child = _zygote(preload).spawn(_request(args, cwd, env, memory), theirs)
    finally:
        for fd in theirs:
            os.close(fd)
    child.stdin = os.fdopen(pipes[0][1], "wb")
    child.stdout = os.fdopen(pipes[1][0], "rb")
    child.stderr = os.fdopen(pipes[2][0], "rb")
    return child


@dataclass
class Completed:
    """What `subprocess.run(..., capture_output=True, text=True)` gives: the exit code and the two outputs."""
    args: list
    returncode: int
    stdout: str | bytes
    stderr: str | bytes


def run_cli(args: list, *, cwd: Path | str | None = None, input: str | bytes = "",
            env: Optional[Mapping[str, str]] = None, memory: Optional[int] = None, timeout: float = 600,
            preload: tuple = (), text: bool = True) -> Completed:
    """`rulecraft *args` in `cwd` (this process's by default) run to its end as a child process (forked, see above),
    with `input` on stdin, `env` as its environment (this process's by default), and an address-space cap of `memory`
    bytes (RLIMIT_AS) if given. `preload` names modules the commands import besides the engine's (one zygote per
    set). Its output goes to files, read back once it ends (no pipe to drain while it runs): text, or bytes if not
    `text` (as `subprocess.run`'s `text`)."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = [os.path.join(tmp, name) for name in ("stdin", "stdout", "stderr")]
        Path(paths[0]).write_bytes(input.encode("utf-8") if isinstance(input, str) else input)
        fds = (os.open(paths[0], os.O_RDONLY), os.open(paths[1], os.O_WRONLY | os.O_CREAT, 0o600),
               os.open(paths[2], os.O_WRONLY | os.O_CREAT, 0o600))
        try:
            child = _zygote(preload).spawn(_request(args, cwd, env, memory), fds)
        finally:
            for fd in fds:
                os.close(fd)
        try:
            code = child.wait(timeout)
        except subprocess.TimeoutExpired:  # a regression that hangs: stopped, as subprocess.run's timeout does
            child.kill()
            child.wait()
            raise
        out, err = (Path(p).read_bytes() for p in paths[1:])
    if text:
        return Completed(list(args), code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))
    return Completed(list(args), code, out, err)
