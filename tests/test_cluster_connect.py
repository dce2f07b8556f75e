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

from rulecraft.tools.simulate import cluster


def _waits_in_join(thread: threading.Thread, seconds: float = 10.0) -> bool:
    """Whether `thread` is (within `seconds`) inside a `Thread.join`: the wait a Ctrl-C must interrupt, not the
    start of the client's thread just before it."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        frame = sys._current_frames().get(thread.ident)
        while frame is not None:
            if frame.f_code.co_name == "join" and frame.f_code.co_filename == threading.__file__:
                return True
            frame = frame.f_back
        time.sleep(0.001)
    return False


class SlowClient:
    """Made after the wait was interrupted; its collection raises as Dask's Client's did. Ctrl-C comes while it is
    being made (sent from here, so at that moment whatever the machine's load: a timer of 50 ms against a client
    taking 300 ms missed the wait when its thread ran late, and its Ctrl-C then stopped the test session), and it is
    finished only once the test has seen the wait interrupted (or after 10 s, so that a failing test never hangs)."""

    made = threading.Event()
    closed = threading.Event()
    interrupted = threading.Event()

    def __init__(self, address, timeout, set_as_default):
        waiting = _waits_in_join(threading.main_thread())
        assert waiting, "the main thread never waited for the client"
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C during the wait
        SlowClient.interrupted.wait(10)
        SlowClient.made.set()

    def close(self, timeout=None):
        SlowClient.closed.set()

    def __del__(self):
        raise TimeoutError("the scheduler did not answer")


SlowClient.__del__.__module__ = "distributed.client"  # what the quiet hook recognises: Dask's own objects


def test_ctrl_c_while_the_client_is_made_leaves_no_traceback(monkeypatch, capsys):
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)  # restored after the test
    with pytest.raises(KeyboardInterrupt):
        cluster._connect(SlowClient, "tcp://127.0.0.1:1", 5.0)
    SlowClient.interrupted.set()
    assert SlowClient.made.wait(10) and SlowClient.closed.wait(10)  # the abandoned client is closed in its thread
    gc.collect()
    assert "Traceback" not in capsys.readouterr().err


def test_ctrl_c_just_after_the_clients_thread_started_still_closes_the_client(monkeypatch):
    """Ctrl-C that comes after the client's thread was started and before the wait on it began (the thread's start
    returning): the client made in that thread was never marked abandoned, so nobody closed it. Here the Ctrl-C is
    raised by the start itself, once the thread runs: the moment the race left open, whatever the machine's load."""
    made, closed = threading.Event(), threading.Event()

    class QuickClient:
        def __init__(self, address, timeout, set_as_default):
            made.set()

        def close(self, timeout=None):
            closed.set()

    real_start = threading.Thread.start

    def start_then_ctrl_c(self):
        real_start(self)
        if self.name == "rulecraft-dask-connect":
            raise KeyboardInterrupt

    monkeypatch.setattr(threading.Thread, "start", start_then_ctrl_c)
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)  # restored after the test
    with pytest.raises(KeyboardInterrupt):
        cluster._connect(QuickClient, "tcp://127.0.0.1:1", 5.0)
    assert made.wait(10)
    assert closed.wait(10), "the client made after the Ctrl-C was left open"
