"""Each thread under its own name where the operating system shows threads.

Python names its threads for itself only (before 3.14): ``top -H``, ``ps -L``,
``py-spy``'s native view and ``/proc/PID/task/TID/comm`` show every thread of a
table, a platform or a wallet as ``python``, so an operator cannot tell the
table's thread from its studio link's or a card reader's, and the benches
cannot say which of them spends a process's CPU. A thread that calls
``name_this_thread`` (first thing in its target; a thread pool's
``initializer``) carries its Python name there too: the first
``LIMIT`` bytes of it, as Linux keeps them. Elsewhere it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
import threading

#: the bytes of a name Linux keeps (16 with the closing NUL)
LIMIT = 15
#: prctl's option that names the calling thread
_PR_SET_NAME = 15

_prctl = None  # (found at the first call: libc's prctl, or False where there is none)


def os_name(name: str) -> bytes:
    """``name`` as Linux will keep it: UTF-8, at most ``LIMIT`` bytes, never a character cut in two."""
    raw = name.encode("utf-8", "replace")[:LIMIT]
    return raw.decode("utf-8", "ignore").encode("utf-8")


def name_this_thread(name: str | None = None) -> bool:
    """Name the calling thread ``name`` (default: its Python name) for the operating
    system; whether it was named (False off Linux, or where libc has no prctl)."""
    global _prctl
    if _prctl is None:
        _prctl = False
        if sys.platform.startswith("linux"):
            try:
                _prctl = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True).prctl
            except (OSError, AttributeError):
                _prctl = False
    if not _prctl:
        return False
    label = os_name(threading.current_thread().name if name is None else name)
    return _prctl(_PR_SET_NAME, ctypes.c_char_p(label), 0, 0, 0) == 0


def thread(target, name: str, *, args: tuple = (), daemon: bool = True) -> threading.Thread:
    """A ``threading.Thread`` named ``name`` that runs ``target(*args)`` under that
    name for the operating system too (a device's reader, a link's worker)."""

    def run(*given):
        name_this_thread()
        target(*given)

    return threading.Thread(target=run, name=name, args=args, daemon=daemon)
