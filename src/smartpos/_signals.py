"""Stop a long-running loop gracefully on SIGTERM and SIGINT: the one place that installs them.

Used by ``Worker.run(install_signal_handlers=True)`` and by the ``smartpos`` commands that
serve until stopped (``sandbox``, ``listen``).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Final

__all__ = ["STOP_SIGNALS", "stop_on_signals"]

#: The signals that ask a process to stop: ``kill``, a container runtime, a supervisor
#: (SIGTERM) and Ctrl-C (SIGINT).
STOP_SIGNALS: Final = (signal.SIGTERM, signal.SIGINT)


@contextlib.contextmanager
def stop_on_signals(stop: threading.Event | Callable[[int], object]) -> Iterator[bool]:
    """While the block runs, SIGTERM and SIGINT ask to stop instead of ending the process.

    Only the main thread can install signal handlers: elsewhere nothing is installed (and
    Ctrl-C keeps raising ``KeyboardInterrupt`` in the main thread).

    Args:
        stop: An event to set, or a function called with the signal number (keep it short:
            it runs between two bytecodes of the main thread).

    Yields:
        Whether the handlers were installed. The previous handlers are restored on exit.
    """
    if threading.current_thread() is not threading.main_thread():
        yield False
        return
    on_signal = (lambda signum: stop.set()) if isinstance(stop, threading.Event) else stop

    def handle(signum: int, frame: FrameType | None) -> None:
        on_signal(signum)

    previous = {sig: signal.signal(sig, handle) for sig in STOP_SIGNALS}
    try:
        yield True
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
