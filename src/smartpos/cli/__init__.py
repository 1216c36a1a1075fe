"""The ``smartpos`` command: try the SDK, drive a service, receive and replay webhook events.

``smartpos demo`` runs a whole sale against an embedded sandbox; ``smartpos --help`` lists
every command. Heavy modules (httpx clients, the sandbox, the webhook kit, segno) are imported
inside the command that needs them, so the help stays fast.

Exit statuses: 0 success; 1 an error (the service refused, local validation, the network,
a file); 2 a usage error; 3 the outcome of a payment, refund or print job is unknown (the
service may have accepted it: never retry it with a new referencia, wait for its event);
4 ``sales report`` found pendências (a human decides before the till closes); 130 interrupted.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``smartpos`` command.

    Args:
        argv: The arguments after the program name; ``sys.argv[1:]`` when ``None``.

    Returns:
        The exit status (see the module docstring).
    """
    from ._app import run

    return run(argv)
