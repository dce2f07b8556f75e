"""Ctrl-C while connecting to a cluster: one line and no traceback, even from the client still being made in its
thread (issue 38, item 9: a `Client.__del__ ... TimeoutError` traceback came after the one line)."""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
import time

import pytest

from rulecraft.tools.simulate import executors


class SlowClient:
    """Made after the wait was interrupted; its collection raises as Dask's Client's did."""

    made = threading.Event()
    closed = threading.Event()

    def __init__(self, address, timeout, set_as_default):
        time.sleep(0.3)
        SlowClient.made.set()

    def close(self, timeout=None):
        SlowClient.closed.set()

    def __del__(self):
        raise TimeoutError("the scheduler did not answer")


SlowClient.__del__.__module__ = "distributed.client"  # what the quiet hook recognises: Dask's own objects


def test_ctrl_c_while_the_client_is_made_leaves_no_traceback(monkeypatch, capsys):
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)  # restored after the test
    threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)).start()  # Ctrl-C during the wait
    with pytest.raises(KeyboardInterrupt):
        executors._connect(SlowClient, "tcp://127.0.0.1:1", 5.0)
    assert SlowClient.made.wait(10) and SlowClient.closed.wait(10)  # the abandoned client is closed in its thread
    gc.collect()
    assert "Traceback" not in capsys.readouterr().err
