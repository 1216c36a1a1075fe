"""The parameters of each endpoint, written once: a ``TypedDict`` per endpoint.

The clients' methods take them as ``**params: Unpack[PaymentParams]`` (PEP 692), so that type
checkers see every keyword, and the builders of ``_calls``/``_arguments`` read the same dict:
a new optional field is one line here (with its documentation line) and its check in
``_arguments``. At run time ``takes`` gives each method the signature a reader expects
(``help()``, ``inspect.signature``: every keyword, with its default) and ``complete`` refuses
an unknown or missing keyword with a ``TypeError``, as Python does for a written-out
parameter list. The ``Attributes:`` of each class are the one text of its keywords' ``Args:``:
``scripts/unasync.py`` copies them into the clients' docstrings (``--check`` in CI).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ForwardRef, TypedDict, TypeVar

# At run time too: ``typing.get_type_hints(PaymentParams)`` resolves every key's type.
from ._models import (
    Comanda,
    Comprovante,
    FormaPagamento,
    ModoExecucao,
    PagamentoOriginal,
    Parcelamento,
)

__all__ = ["PaymentParams", "PrintJobParams", "QRCodeParams", "RefundParams", "complete", "takes"]

F = TypeVar("F", bound=Callable[..., Any])


class _QRCodeRequired(TypedDict):
    documento_cliente: str


class QRCodeParams(_QRCodeRequired, total=False):
    """The arguments of ``qrcodes.create`` and ``qrcodes.create_and_wait``: ``POST /qrcode``.

    Attributes:
        documento_cliente: The customer's CPF or CNPJ, masked or not.
        referencia: Echoed back; default a new ``smartpos.new_referencia()``.
    """

    referencia: str | None


class _PaymentRequired(TypedDict):
    documento_cliente: str
    valor_centavos: int


class PaymentParams(_PaymentRequired, total=False):
    """The arguments of ``payments.create`` and ``payments.create_and_wait``: ``POST /v1/payments``.

    Attributes:
        documento_cliente: The customer's CPF or CNPJ, masked or not.
        valor_centavos: The amount in cents, a positive ``int``.
        smartpos_id: The terminal that charges; required in ``imediato`` mode.
        referencia: One per attempt; default a new ``smartpos.new_referencia()``.
        forma_pagamento: ``credito``, ``debito``, ``pix`` or ``voucher``; default: the
            terminal's own flow.
        parcelas: Installments (credito only); 1 or omitted for a single payment.
        parcelamento: ``estabelecimento`` or ``administradora``; required for credito
            with ``parcelas > 1``.
        modo_execucao: ``imediato`` (charge now) or ``manual`` (a card in the operator's
            queue, which needs ``comanda``).
        comanda: The manual-queue card.
        comprovante: Receipt printing and preview preferences.
        sale: Your own key of the sale this charge pays (a tab, an order; at most 100
            characters): one open attempt per sale, paid once, across processes. Needs a
            client with a store.
        total_centavos: The sale's total, for a sale paid by several charges (a split bill);
            default: this charge's ``valor_centavos``. Fixed by the sale's first attempt.
    """

    smartpos_id: str | None
    referencia: str | None
    forma_pagamento: FormaPagamento | str | None
    parcelas: int | None
    parcelamento: Parcelamento | str | None
    modo_execucao: ModoExecucao | str
    comanda: Comanda | None
    comprovante: Comprovante | None
    sale: str | None
    total_centavos: int | None


class _RefundRequired(TypedDict):
    documento_cliente: str
    smartpos_id: str
    valor_centavos: int
    pagamento_original: PagamentoOriginal


class RefundParams(_RefundRequired, total=False):
    """The arguments of ``refunds.create``: ``POST /v1/refunds``.

    Attributes:
        documento_cliente: The customer of the original payment.
        smartpos_id: The terminal that executed the original payment.
        valor_centavos: The amount to refund in cents (total or partial).
        pagamento_original: The authorization data of the ``pagamento.aprovado`` event.
        referencia: The refund's own referencia; default a new one.
    """

    referencia: str | None


class _PrintJobRequired(TypedDict):
    documento_cliente: str
    smartpos_id: str
    conteudo: bytes | str


class PrintJobParams(_PrintJobRequired, total=False):
    """The arguments of ``print_jobs.create`` and ``print_jobs.create_and_wait``.

    ``POST /v1/print-jobs``.

    Attributes:
        documento_cliente: The customer linked to the terminal.
        smartpos_id: The terminal that prints.
        conteudo: What to print: bytes, or a str (UTF-8 encoded). The SDK Base64-encodes it.
        referencia: One per print job; default a new one.
    """

    referencia: str | None


#: A default other than ``None`` for an omitted optional keyword.
_DEFAULTS: dict[type, dict[str, object]] = {PaymentParams: {"modo_execucao": ModoExecucao.IMEDIATO}}


class _Spec:
    """What ``complete`` and ``takes`` need of one ``TypedDict``: names, required, defaults."""

    __slots__ = ("annotations", "defaults", "endpoint", "names", "required")

    def __init__(self, kind: type) -> None:
        hints: Mapping[str, object] = kind.__annotations__
        self.names: tuple[str, ...] = tuple(hints)
        self.required: frozenset[str] = kind.__required_keys__  # type: ignore[attr-defined]
        defaults = _DEFAULTS.get(kind, {})
        optional = [name for name in self.names if name not in self.required]
        self.defaults = {name: defaults.get(name) for name in optional}
        self.annotations = {name: _annotation_text(hint) for name, hint in hints.items()}
        self.endpoint = kind.__name__


def _annotation_text(hint: object) -> object:
    """The annotation as the source spells it (``from __future__ import annotations``)."""
    if isinstance(hint, ForwardRef):
        return hint.__forward_arg__
    return hint


_SPECS: dict[type, _Spec] = {}


def _spec(kind: type) -> _Spec:
    spec = _SPECS.get(kind)
    if spec is None:
        spec = _SPECS[kind] = _Spec(kind)
    return spec


def complete(kind: type, params: Mapping[str, object]) -> dict[str, Any]:
    """Every keyword of ``kind``: the given values, the defaults of the others.

    Raises:
        TypeError: a keyword ``kind`` does not have (with the closest one it has), or a
            required keyword missing: what Python raises for a written-out parameter list.
    """
    spec = _spec(kind)
    if len(params.keys() - spec.names) or not spec.required <= params.keys():
        from ._messages import message  # not on `import smartpos`: only when refusing

        unknown = sorted(params.keys() - spec.names)
        if unknown:
            import difflib

            close = difflib.get_close_matches(unknown[0], spec.names, n=1)
            if close:
                text = message("argument.unknown_keyword_close", name=unknown[0], close=close[0])
            else:
                names = ", ".join(spec.names)
                text = message(
                    "argument.unknown_keyword", name=unknown[0], params=spec.endpoint, names=names
                )
            raise TypeError(text)
        missing = [name for name in spec.names if name in spec.required - params.keys()]
        raise TypeError(message("argument.missing_keyword", name=missing[0], params=spec.endpoint))
    return {**spec.defaults, **params}


def takes(kind: type) -> Callable[[F], F]:
    """Give a ``**params: Unpack[kind]`` method the signature it stands for.

    The keywords of ``kind`` take the place of ``**params``, before the method's own keyword
    parameters (``timeout`` ...), each with its default: ``help()``, ``inspect.signature``,
    the parity tests and the public-surface snapshot see every keyword.
    """
    import inspect  # only the clients' modules decorate: not on `import smartpos`

    spec = _spec(kind)

    def decorate(function: F) -> F:
        signature = inspect.signature(function)
        own = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
        first = [p for p in own if p.kind is not p.KEYWORD_ONLY]
        spread = [
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                default=inspect.Parameter.empty if name in spec.required else spec.defaults[name],
                annotation=spec.annotations[name],
            )
            for name in spec.names
        ]
        last = [p for p in own if p.kind is p.KEYWORD_ONLY]
        function.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[*first, *spread, *last]
        )
        return function

    return decorate
