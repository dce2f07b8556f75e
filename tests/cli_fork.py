"""`run_cli`: `rulecraft ARGS` run as a child process, as `python -c "...main(sys.argv[1:])"` runs it, but forked from
a process that has already imported the command line (a "zygote"), so a test that runs the command many times pays
Python's start and the engine's imports (about 0.3 s of CPU each) once per test process, not once per run.

What the child gets is what a fresh process gets: its own process (its exit code, its memory cap: RLIMIT_AS is set
in the child, over the imports a fresh run would also make, so a cap is if anything tighter), its own working
folder, environment and argv, stdin from the text given (then end of file), stdout and stderr to files read back,
and Python's normal exit (atexit, buffers flushed). An uncaught exception prints its traceback and exits 1, as
Python does. Use `subprocess` instead where the test is about the process itself (signals, a terminal, timing of
output).
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional

_ZYGOTE = r'''
import json, os, sys
from rulecraft.tools.cli.main import main
import rulecraft.loader, rulecraft.runtime.game  # what nearly every command loads: imported once, here
import importlib
for _name in sys.argv[3:]:  # what the caller's commands load besides (e.g. distributed, for --cluster)
    importlib.import_module(_name)

def _child(req):
    os.chdir(req["cwd"])
    os.environ.clear()
    os.environ.update(req["env"])
    fds = [os.open(req["stdin"], os.O_RDONLY), os.open(req["stdout"], os.O_WRONLY), os.open(req["stderr"], os.O_WRONLY)]
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    if req["memory"]:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (req["memory"], req["memory"]))
    sys.argv = ["-c", *req["args"]]
    sys.exit(main(req["args"]))  # Python's own exit: atexit, buffers flushed; a traceback and 1 if main raises

def _serve():
    channel = os.fdopen(int(sys.argv[1]), "rb", buffering=0)
    answer = os.fdopen(int(sys.argv[2]), "w", buffering=1)
    line = b""
    while True:
        chunk = channel.read(1)
        if not chunk:
            return
        if chunk != b"\n":
            line += chunk
            continue
        req, line = json.loads(line), b""
        pid = os.fork()
        if pid == 0:
            channel.close()
            answer.close()
            return req
        answer.write(json.dumps({"pid": pid}) + "\n")
        _, status = os.waitpid(pid, 0)
        answer.write(json.dumps({"status": os.waitstatus_to_exitcode(status)}) + "\n")

req = _serve()
if req is not None:
    _child(req)
'''


@dataclass
class Completed:
    """What `subprocess.run(..., capture_output=True, text=True)` gives: the exit code and the two outputs."""
    args: list
    returncode: int
    stdout: str
    stderr: str


class _Zygote:
    def __init__(self, preload: tuple = ()) -> None:
        req_r, self._req_w = os.pipe()
        self._ans_r, ans_w = os.pipe()
        os.set_inheritable(req_r, True)
        os.set_inheritable(ans_w, True)
        # requests in, answers out, on two pipes of their own (the zygote's stdin, stdout and stderr are left alone)
        self.proc = subprocess.Popen([sys.executable, "-c", _ZYGOTE, str(req_r), str(ans_w), *preload], pass_fds=(req_r, ans_w),
                                     stdin=subprocess.DEVNULL)
        os.close(req_r)
        os.close(ans_w)
        self._buffer = b""

    def _answer(self, timeout: Optional[float] = None) -> Optional[dict]:
        import select

        while b"\n" not in self._buffer:
            if timeout is not None and not select.select([self._ans_r], [], [], timeout)[0]:
                return None
            chunk = os.read(self._ans_r, 4096)
            if not chunk:
                raise RuntimeError("the command line's zygote stopped")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def run(self, req: dict, timeout: float) -> int:
        os.write(self._req_w, (json.dumps(req) + "\n").encode())
        pid = self._answer()["pid"]
        done = self._answer(timeout)
        if done is None:  # a regression that hangs: stop it, as subprocess.run's timeout does
            os.kill(pid, 9)
            self._answer()
            raise subprocess.TimeoutExpired(req["args"], timeout)
        return done["status"]

    def close(self) -> None:
        os.close(self._req_w)
        os.close(self._ans_r)
        self.proc.wait(timeout=30)


_zygotes: dict[tuple, _Zygote] = {}


def run_cli(args: list, *, cwd: Path | str | None = None, input: str = "", env: Optional[Mapping[str, str]] = None,
            memory: Optional[int] = None, timeout: float = 600, preload: tuple = ()) -> Completed:
    """`rulecraft *args` in `cwd` (this process's by default) as a child process (forked, see above), with `input` on
    stdin, `env` as its environment (this process's by default), and an address-space cap of `memory` bytes
    (RLIMIT_AS) if given. `preload` names modules the commands import besides the engine's (one zygote per set)."""
    zygote = _zygotes.get(preload)
    if zygote is None or zygote.proc.poll() is not None:
        zygote = _zygotes[preload] = _Zygote(preload)
        atexit.register(zygote.close)
    with tempfile.TemporaryDirectory() as tmp:
        paths = {name: os.path.join(tmp, name) for name in ("stdin", "stdout", "stderr")}
        Path(paths["stdin"]).write_text(input, encoding="utf-8")
        Path(paths["stdout"]).touch()
        Path(paths["stderr"]).touch()
        req = {"args": [str(a) for a in args], "cwd": str(cwd or os.getcwd()), "env": dict(os.environ if env is None else env),
               "memory": memory or 0, **paths}
        code = zygote.run(req, timeout)
        out = Path(paths["stdout"]).read_text(encoding="utf-8", errors="replace")
        err = Path(paths["stderr"]).read_text(encoding="utf-8", errors="replace")
    return Completed(list(args), code, out, err)
