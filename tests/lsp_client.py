"""A small synchronous JSON-RPC client for language servers over stdio, as editors speak it (tests only)."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable


class LspClient:
    """Starts a server process, frames messages with Content-Length, answers the server's own requests."""

    def __init__(self, cmd: list[str] | Callable[[], Any], settings: dict | None = None, cwd: str | None = None,
                 **popen: Any):
        """`cmd`: the server's command line, or a function that starts it and returns it with pipes, as
        `subprocess.Popen` does (tests/cli_fork.py's `spawn_cli`)."""
        self.proc = cmd() if callable(cmd) else subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                                   stderr=subprocess.PIPE, cwd=cwd, **popen)
        self.order: list[str] = []  # what arrived, in order: 'response ID' or a notification's method
        self.settings = settings or {}
        self._next = 0
        self._responses: dict[int, queue.Queue] = {}
        self.notifications: "queue.Queue[dict]" = queue.Queue()
        self.diagnostics: dict[str, list] = {}
        self._lock = threading.Lock()
        self._diag_event = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        self.stderr_lines = []
        self._drain = threading.Thread(target=lambda: self.stderr_lines.extend(self.proc.stderr), daemon=True)
        self._drain.start()  # drain: a full pipe would block it

    # ------------------------------------------------------------ wire
    def _send(self, msg: dict) -> None:
        body = json.dumps(msg).encode("utf-8")
        with self._lock:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            msg = json.loads(out.read(length))
            self.order.append(f"response {msg['id']}" if "id" in msg and "method" not in msg else msg.get("method", ""))
            if "id" in msg and "method" in msg:
                self._send({"jsonrpc": "2.0", "id": msg["id"], "result": self._answer(msg)})
            elif "id" in msg:
                self._responses.setdefault(msg["id"], queue.Queue()).put(msg)
            else:
                if msg.get("method") == "textDocument/publishDiagnostics":
                    with self._diag_event:
                        self.diagnostics[msg["params"]["uri"]] = msg["params"]["diagnostics"]
                        self._diag_event.notify_all()
                self.notifications.put(msg)

    def _answer(self, msg: dict) -> Any:
        if msg["method"] == "workspace/configuration":
            return [self._section(item.get("section", "")) for item in msg["params"]["items"]]
        return None

    def _section(self, name: str) -> Any:
        node: Any = self.settings
        for part in filter(None, name.split(".")):
            node = node.get(part) if isinstance(node, dict) else None
        return node

    # ------------------------------------------------------------ API
    def request(self, method: str, params: Any, timeout: float = 60) -> Any:
        msg = self.call(method, params, timeout)
        if "error" in msg:
            raise RuntimeError(f"{method}: {msg['error']}")
        return msg.get("result")

    def call(self, method: str, params: Any, timeout: float = 60) -> dict:
        """The whole response message to one request (its 'result' or its 'error')."""
        rid = self.send_request(method, params)
        return self.reply(rid, timeout)

    def send_request(self, method: str, params: Any) -> int:
        self._next += 1
        rid = self._next
        self._responses.setdefault(rid, queue.Queue())
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return rid

    def reply(self, rid: Any, timeout: float = 60) -> dict:
        return self._responses.setdefault(rid, queue.Queue()).get(timeout=timeout)

    def raw(self, data: bytes) -> None:
        """Bytes written to the server as they are (a hostile or broken client)."""
        with self._lock:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def initialize(self, root: Path) -> dict:
        caps = {"textDocument": {"completion": {"completionItem": {"snippetSupport": False}},
                                 "hover": {"contentFormat": ["markdown", "plaintext"]},
                                 "publishDiagnostics": {"relatedInformation": True},
                                 "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix"]}}},
                                 "documentSymbol": {"hierarchicalDocumentSymbolSupport": True}},
                "workspace": {"configuration": True, "didChangeConfiguration": {"dynamicRegistration": False}}}
        result = self.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": caps,
                                             "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}]})
        self.notify("initialized", {})
        return result

    def open(self, path: Path, text: str | None = None, language: str = "yaml") -> str:
        uri = path.resolve().as_uri()
        with self._diag_event:
            self.diagnostics.pop(uri, None)
        text = path.read_text(encoding="utf-8") if text is None else text
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language, "version": 1,
                                                               "text": text}})
        return uri

    def change(self, uri: str, text: str, version: int) -> None:
        with self._diag_event:
            self.diagnostics.pop(uri, None)
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": [{"text": text}]})

    def wait_diagnostics(self, uri: str, timeout: float = 60, until: Callable[[list], bool] | None = None) -> list:
        """The diagnostics the server publishes for `uri` next (and, with `until`, the first list that satisfies it)."""
        deadline = time.monotonic() + timeout
        with self._diag_event:
            while True:
                got = self.diagnostics.get(uri)
                if got is not None and (until is None or until(got)):
                    return got
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no diagnostics for {uri}")
                self._diag_event.wait(left)

    def log(self) -> str:
        """What the server wrote to its log (stderr). Its lines are read by a thread of their own: once the server has
        stopped, every line it wrote is waited for; while it runs, the lines read so far (a line written just before
        a reply may not be read yet: wait for the server to stop before asserting on a line)."""
        if self.proc.poll() is not None:
            self._drain.join(timeout=60)
        return b"".join(self.stderr_lines).decode("utf-8", "replace")

    def close(self) -> None:
        try:
            # generous waits: on a busy machine (other suites on the same cores) a server took over 10 s to stop,
            # and was killed (exit -9) by a test that only meant to stop a hang
            self.request("shutdown", None, timeout=60)
            self.notify("exit", None)
            self.proc.wait(timeout=60)
        except Exception:  # noqa: BLE001 - a server that does not stop is stopped
            self.proc.kill()
            self.proc.wait()
        finally:
            self._drain.join(timeout=60)  # (its last lines read before the pipe is closed)
            for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                try:
                    stream.close()
                except Exception:  # noqa: BLE001
                    pass
