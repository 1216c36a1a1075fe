"""Test without the service: an in-process simulator of it, and a pytest plugin.

>>> from smartpos.testing import Sandbox
>>> sandbox = Sandbox()          # a ready world: Sandbox.API_KEY, DOCUMENTO, SMARTPOS_ID
>>> transport = sandbox.transport()   # for smartpos.Client / AsyncClient(transport=...)

See ``docs/testing.md``.
"""

from ._delivery import DeliveryAttempt, SupportsReceive, WebhookTarget
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
from ._outcomes import (
    Approve,
    NoAnswer,
    PaymentOutcome,
    PrintDone,
    PrintFail,
    PrintOutcome,
    Refuse,
)
from ._sandbox import QRCodeExpiredError, Sandbox, SandboxError, SandboxTransport
from ._world import (
    Card,
    Customer,
    KeyStatus,
    Partner,
    Payment,
    PrintJob,
    QRCode,
    RecordedRequest,
    Refund,
    Terminal,
)

__all__ = [
    "Approve",
    "BadGateway",
    "Card",
    "ConnectionRefused",
    "Customer",
    "DeliveryAttempt",
    "DropConnection",
    "Endpoint",
    "Fault",
    "InternalError",
    "KeyStatus",
    "Latency",
    "NoAnswer",
    "Partner",
    "Payment",
    "PaymentOutcome",
    "PrintDone",
    "PrintFail",
    "PrintJob",
    "PrintOutcome",
    "QRCode",
    "QRCodeExpiredError",
    "RateLimited",
    "ReadTimeout",
    "RecordedRequest",
    "Refund",
    "Refuse",
    "Sandbox",
    "SandboxError",
    "SandboxTransport",
    "SupportsReceive",
    "Terminal",
    "WebhookTarget",
]
