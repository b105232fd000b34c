"""Ctrl-C (SIGINT) or SIGTERM stops the stdio server at once, whichever thread receives it.

Waiting for a clean shutdown would hang: the SDK reads stdin on a thread that only returns
when the client closes it. Stopping at once is safe: every write is one transaction (a killed
process never loses an acknowledged save, see the crash tests), and vectors still being
computed are caught up at the next start.

A Python signal handler runs only on the main thread, and only when that thread next runs
Python code. The kernel hands a process's signal to any thread that does not block it: when it
chose the stdin reader or a worker, the main thread slept on in the event loop's wait, and the
server stopped 30 s late or not at all (seen in CI, about one full run in five). So Python's
own C-level handler also writes the signal's number to a socket (`signal.set_wakeup_fd`), and
a thread of ours, waiting on its other end, stops the process whichever thread was interrupted.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import threading

SIGNALS = (signal.SIGINT, signal.SIGTERM)

# Taken by whichever of the two paths (the waiting thread, the main thread's handler) comes
# first, so the notice is written once.
_stopping = threading.Lock()
_held: list[socket.socket] = []


def stop_on_signals() -> None:
    """Install the handlers; call from the main thread before serving."""
    # A socket pair, not a pipe: on Windows the wakeup descriptor must be a socket.
    read, write = socket.socketpair()
    write.setblocking(False)  # set_wakeup_fd requires it: a signal handler never blocks
    threading.Thread(target=_wait_for_signal, args=(read,), name="engram-stop", daemon=True).start()
    signal.set_wakeup_fd(write.fileno(), warn_on_full_buffer=False)
    _held.extend((read, write))  # open for the life of the process
    for signum in SIGNALS:
        # Still needed: the wakeup socket is written only for signals with a Python handler,
        # and this one also stops the server if something replaces that socket later.
        signal.signal(signum, stop)


def _wait_for_signal(read: socket.socket) -> None:
    while True:
        received = read.recv(1)
        if received and received[0] in SIGNALS:
            stop(received[0], None)


def stop(signum: int, _frame: object) -> None:
    """End the process with 128 + signum, the shell's code for a process a signal ended."""
    if not _stopping.acquire(blocking=False):
        return  # the other path is already ending the process
    # No logging call here: one takes the handler's lock, and a thread holding it while
    # blocked on a full stderr pipe (a client that does not read it) would keep the server
    # from stopping. Every record already went out when it was logged (stream handlers flush).
    with contextlib.suppress(OSError):
        # Not a terminal's: that is the shell's too, and was left unreadable after Ctrl-C
        # (a terminal does not fill up as an unread pipe does).
        if hasattr(os, "set_blocking") and not os.isatty(2):  # no set_blocking: old Windows
            os.set_blocking(2, False)
        os.write(2, f"engram: stopping on signal {signum}\n".encode())
    os._exit(128 + signum)
