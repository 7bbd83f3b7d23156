"""Engine workers die with the server that started them, even when it is killed with -9.

Two guards, because either alone has a gap: the kernel's parent-death signal (Linux PR_SET_PDEATHSIG:
immediate, but only on Linux) and a watch thread that notices the parent has changed (every POSIX
system, within a second). Without them a busy worker outlives its server, and the next server start
runs a second pool beside it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

_PR_SET_PDEATHSIG = 1


def _set_parent_death_signal() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def exit_with_parent(poll_seconds: float = 1.0) -> None:
    """Arranges for this process to end as soon as its parent is gone."""
    parent = os.getppid()
    _set_parent_death_signal()
    if os.getppid() != parent or parent == 1:  # the parent died before the signal was armed
        os._exit(70)

    def watch() -> None:
        while True:
            time.sleep(poll_seconds)
            if os.getppid() != parent:
                os._exit(70)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
