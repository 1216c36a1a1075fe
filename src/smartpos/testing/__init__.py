"""Test without the service: an in-process simulator of it, and a pytest plugin.

```python
from smartpos.testing import Sandbox

sandbox = Sandbox()  # a ready world: Sandbox.API_KEY, DOCUMENTO, SMARTPOS_ID
transport = sandbox.transport()  # for smartpos.Client / AsyncClient(transport=...)
```

See ``docs/en/testing.md``.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._delivery import DeliveryAttempt, SupportsReceive, WebhookTarget
    from ._errors import QRCodeExpiredError, SandboxError
    from ._faults import (
        BadGateway,
        ConnectionRefused,
        DropConnection,
        Endpoint,
        Fault,
        InternalError,
        Latency,
        RateLimited,
        ReadTimeout,
    )
    from ._httpx import SandboxTransport
    from ._outcomes import (
        Approve,
        Contradict,
        Delay,
        Duplicate,
        Hold,
        NoAnswer,
        OutOfOrder,
        PaymentOutcome,
        PrintDone,
        PrintFail,
        PrintOutcome,
        Refuse,
    )
    from ._records import (
        Card,
        Customer,
        KeyStatus,
        LogEntry,
        Partner,
        Payment,
        PrintJob,
        RecordedRequest,
        SandboxQRCode,
        SandboxRefund,
        SandboxTerminal,
    )
    from ._remote import RemoteSandbox
    from ._sandbox import Sandbox
    from ._signing import WebhookSigning, sign

__all__ = [
    "Approve",
    "BadGateway",
    "Card",
    "ConnectionRefused",
    "Contradict",
    "Customer",
    "Delay",
    "DeliveryAttempt",
    "DropConnection",
    "Duplicate",
    "Endpoint",
    "Fault",
    "Hold",
    "InternalError",
    "KeyStatus",
    "Latency",
    "LogEntry",
    "NoAnswer",
    "OutOfOrder",
    "Partner",
    "Payment",
    "PaymentOutcome",
    "PrintDone",
    "PrintFail",
    "PrintJob",
    "PrintOutcome",
    "QRCodeExpiredError",
    "RateLimited",
    "ReadTimeout",
    "RecordedRequest",
    "Refuse",
    "RemoteSandbox",
    "Sandbox",
    "SandboxError",
    "SandboxQRCode",
    "SandboxRefund",
    "SandboxTerminal",
    "SandboxTransport",
    "SupportsReceive",
    "WebhookSigning",
    "WebhookTarget",
    "sign",
]

# Names load on first use: the pytest plugin (entry point ``pytest11``) lives in this package, so
# every pytest run of a project that has smartpos installed imports this module. Importing the
# sandbox (and httpx) here would add ~120 ms to each of those runs.
_HOMES = {
    "._delivery": ("DeliveryAttempt", "SupportsReceive", "WebhookTarget"),
    "._faults": (
        "BadGateway",
        "ConnectionRefused",
        "DropConnection",
        "Endpoint",
        "Fault",
        "InternalError",
        "Latency",
        "RateLimited",
        "ReadTimeout",
    ),
    "._outcomes": (
        "Approve",
        "Contradict",
        "Delay",
        "Duplicate",
        "Hold",
        "NoAnswer",
        "OutOfOrder",
        "PaymentOutcome",
        "PrintDone",
        "PrintFail",
        "PrintOutcome",
        "Refuse",
    ),
    "._errors": ("QRCodeExpiredError", "SandboxError"),
    "._records": (
        "Card",
        "Customer",
        "KeyStatus",
        "LogEntry",
        "Partner",
        "Payment",
        "PrintJob",
        "RecordedRequest",
        "SandboxQRCode",
        "SandboxRefund",
        "SandboxTerminal",
    ),
    "._remote": ("RemoteSandbox",),
    "._httpx": ("SandboxTransport",),
    "._sandbox": ("Sandbox",),
    "._signing": ("WebhookSigning", "sign"),
}
_LAZY = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'smartpos.testing' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
