"""Django admin pages of ``DjangoStore``'s tables: sales, operations (the journal), events.

Registered when ``django.contrib.admin`` is installed beside the app. What they show:

- **Sales**: id, state, total, approved amount, approvals and pendências; filters by state
  and by "needs attention"; a sale's page lists its attempts, approvals, pendências and
  compensations. Actions: *abandon* (a form asks the reason; the admin user is the
  ``operador``) and *compensate*.
- **Operations**: the journal's entries (referencia, kind, state, sale, times); an entry's
  page shows its outcome, anomalies, saved answer and request with the document masked.
  Action: *reconcile*.
- **Events**: the inbox (id, tipo, state, attempts, last error, the customer's document
  masked); a filter for dead letters; an event's page shows its envelope pretty-printed,
  the document masked. Action: *requeue*.

Every row is the store's: nothing is added, changed or deleted here (the pages are
read-only for everyone, superusers included), and every change goes through the store or
the client, as in ``smartpos sales``/``operations``/``events``. Who sees what is Django's
model permissions: ``view_*`` (or ``change_*``) to see a page, ``change_*`` for its
actions. Sales are computed by the store (``store.sale``), never here.

The pages read the database of ``SMARTPOS["STORE"]`` when it is ``django://ALIAS`` (else
``default``'s, and the actions refuse: no worker or client writes there). The actions use
the app's client, `get_client` (``API_KEY``, ``BASE_URL``, ``CLIENT_OPTIONS``), whose
journal is that store; *abandon* sends nothing.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, cast

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db import DEFAULT_DB_ALIAS
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.functional import lazy
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from smartpos._messages import message

from . import models

if TYPE_CHECKING:
    from smartpos import Client
    from smartpos.webhooks import Sale

    from ._store import DjangoStore

__all__ = ["EventAdmin", "OperationAdmin", "SaleAdmin", "admin_store"]

#: The most sales a state or attention filter shows (the oldest first): the state of a sale
#: is computed by the store from its attempts, so a filter reads sales one by one.
SALE_FILTER_LIMIT: Final = 500

_label: Callable[..., str] = lazy(message, str)


def admin_store() -> DjangoStore:
    """The store the pages show: ``SMARTPOS["STORE"]`` when it is a ``DjangoStore``.

    Otherwise a ``DjangoStore`` on ``default`` (its tables exist once migrated, but nothing
    writes them: the actions refuse, see `_acting_store`).
    """
    from ._state import get_store
    from ._store import DjangoStore
    from .checks import _django_store_alias

    if _django_store_alias() is not None:
        store = get_store()
        if isinstance(store, DjangoStore):
            return store
    return DjangoStore(DEFAULT_DB_ALIAS)


class _Refused(Exception):
    """An action that cannot run: its message is shown to the admin user."""


def _acting_store() -> DjangoStore:
    """The store the actions change, which must be the one the app's client journals in."""
    from .checks import _django_store_alias

    store = admin_store()
    if _django_store_alias() != store.using:
        raise _Refused(message("django.admin.not_the_store", alias=store.using))
    return store


def _client(store: DjangoStore) -> Client:
    """The app's client (`get_client`), checked to journal in ``store``."""
    from smartpos import ConfigurationError

    from ._state import get_client
    from ._store import DjangoStore

    try:
        client = get_client()
    except ConfigurationError as exc:
        raise _Refused(message("django.admin.no_client", problem=exc)) from exc
    journal = getattr(client, "_store", None)
    if not isinstance(journal, DjangoStore) or journal.using != store.using:
        raise _Refused(message("django.admin.client_store", alias=store.using))
    return client


def _when(epoch: float | None) -> _dt.datetime | None:
    """A stored epoch time as an aware datetime (the admin shows it in the local zone)."""
    return None if epoch is None else _dt.datetime.fromtimestamp(epoch, _dt.timezone.utc)


def _iso(value: str | None) -> _dt.datetime | None:
    return None if value is None else _dt.datetime.fromisoformat(value)


def _centavos(value: object) -> str:
    from smartpos import format_reais

    if isinstance(value, bool) or not isinstance(value, int):
        return str(value)
    return format_reais(value)


def _masked_json(data: object) -> SafeString:
    """JSON pretty-printed in a ``<pre>``, every ``documentoCliente`` masked."""
    from smartpos._records import mask_documents

    text = json.dumps(mask_documents(data), indent=2, ensure_ascii=False, sort_keys=True)
    return format_html("<pre>{}</pre>", text)


def _table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> SafeString:
    """A small HTML table; every cell escaped."""
    rows = list(rows)
    if not rows:
        return format_html("{}", "-")
    head = format_html_join("", "<th>{}</th>", ((h,) for h in headers))
    body = format_html_join(
        "",
        "<tr>{}</tr>",
        ((format_html_join("", "<td>{}</td>", ((_cell(c),) for c in row)),) for row in rows),
    )
    return format_html("<table><thead><tr>{}</tr></thead><tbody>{}</tbody></table>", head, body)


def _cell(value: object) -> object:
    if value is None or value == "":
        return "-"
    if isinstance(value, _dt.datetime):
        from django.utils import formats, timezone

        return formats.localize(timezone.localtime(value))
    return value


def _report(request: HttpRequest, refused: _Refused) -> None:
    messages.error(request, str(refused))


class StoreOwnedAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Rows the store owns: listed and shown, never added, edited or deleted here.

    ``has_change_permission`` without an object (the list's actions) is Django's own: the
    actions need the model's ``change`` permission. With an object it is ``False``, so a
    row's page is read-only even for a superuser: a write through a form would race the
    store's own compare-and-set writes, or break their invariants.
    """

    list_per_page = 50

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        """The rows of the store's database alias."""
        return cast("QuerySet[Any]", super().get_queryset(request).using(admin_store().using))

    def has_add_permission(self, request: HttpRequest) -> bool:
        """Never: the store writes its rows."""
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Never: ``store.purge()`` forgets what may be forgotten."""
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """The actions need ``change``; a row itself is never edited."""
        return obj is None and super().has_change_permission(request)


# --- sales ----------------------------------------------------------------------------------


class SaleStateFilter(admin.SimpleListFilter):
    """By state, as the store computes it (at most `SALE_FILTER_LIMIT` sales)."""

    title = _label("django.admin.label.state")
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        """The three states of a sale."""
        return [(state, state) for state in ("open", "in_progress", "paid")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any] | None:
        """The sales the store lists in that state."""
        if self.value() not in ("open", "in_progress", "paid"):
            return None
        found = admin_store().sales(state=self.value(), limit=SALE_FILTER_LIMIT)
        return cast("QuerySet[Any]", queryset.filter(sale_id__in=[s.sale_id for s in found]))


class AttentionFilter(admin.SimpleListFilter):
    """Sales with pendências (what an operator reviews before closing the till), or without."""

    title = _label("django.admin.label.attention")
    parameter_name = "attention"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        """Yes or no."""
        return [
            ("yes", message("django.admin.label.attention_yes")),
            ("no", message("django.admin.label.attention_no")),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any] | None:
        """The sales the store lists with (or without) pendências."""
        if self.value() not in ("yes", "no"):
            return None
        found = admin_store().sales(attention=self.value() == "yes", limit=SALE_FILTER_LIMIT)
        return cast("QuerySet[Any]", queryset.filter(sale_id__in=[s.sale_id for s in found]))


def _sale(obj: models.Sale) -> Sale | None:
    """The sale of a row, computed once per row by the store."""
    if not hasattr(obj, "_smartpos_sale"):
        obj._smartpos_sale = admin_store().sale(obj.sale_id)  # type: ignore[attr-defined]
    return cast("Sale | None", obj._smartpos_sale)  # type: ignore[attr-defined]


def _sale_data(obj: models.Sale) -> Mapping[str, Any] | None:
    """`smartpos sales show --json`'s data of the sale: documents masked."""
    if not hasattr(obj, "_smartpos_sale_data"):
        from smartpos._records import sale_data

        sale = _sale(obj)
        data = None if sale is None else sale_data(sale)
        obj._smartpos_sale_data = data  # type: ignore[attr-defined]
    return cast("Mapping[str, Any] | None", obj._smartpos_sale_data)  # type: ignore[attr-defined]


def _abandon_form() -> type:
    from django import forms

    class Form(forms.Form):
        motivo = forms.CharField(
            label=_label("django.admin.label.motivo"),
            max_length=200,
            widget=forms.TextInput(attrs={"size": 60}),
        )

    return Form


@admin.register(models.Sale)
class SaleAdmin(StoreOwnedAdmin):
    """The sales: state, total, approvals and pendências; abandon and compensate."""

    list_display = (
        "sale_id",
        "state",
        "total",
        "approved",
        "approvals",
        "pendencias",
        "created",
    )
    list_filter = (SaleStateFilter, AttentionFilter)
    search_fields = ("sale_id",)
    ordering = ("-seq",)
    fields = (
        "sale_id",
        "state",
        "total",
        "approved",
        "remaining",
        "created",
        "updated",
        "attempts",
        "approval_list",
        "pendencia_list",
        "compensation_list",
    )
    readonly_fields = fields
    actions = ("abandon", "compensate")

    @admin.display(description=_label("django.admin.label.state"))
    def state(self, obj: models.Sale) -> str:
        """The state the store computes."""
        sale = _sale(obj)
        return "-" if sale is None else sale.state

    @admin.display(description=_label("django.admin.label.total"), ordering="total_centavos")
    def total(self, obj: models.Sale) -> str:
        """The total, in reais."""
        return _centavos(obj.total_centavos)

    @admin.display(description=_label("django.admin.label.approved"))
    def approved(self, obj: models.Sale) -> str:
        """The counted approvals' sum, in reais."""
        sale = _sale(obj)
        return "-" if sale is None else _centavos(sale.approved_centavos)

    @admin.display(description=_label("django.admin.label.remaining"))
    def remaining(self, obj: models.Sale) -> str:
        """What remains to be paid, in reais."""
        sale = _sale(obj)
        return "-" if sale is None else _centavos(sale.remaining_centavos)

    @admin.display(description=_label("django.admin.label.approvals"))
    def approvals(self, obj: models.Sale) -> int:
        """How many approvals count."""
        sale = _sale(obj)
        return 0 if sale is None else len(sale.approvals)

    @admin.display(description=_label("django.admin.label.pendencias"))
    def pendencias(self, obj: models.Sale) -> str:
        """How many pendências, and their reasons."""
        sale = _sale(obj)
        if sale is None or not sale.pendencias:
            return "0"
        reasons = ", ".join(dict.fromkeys(p.reason for p in sale.pendencias))
        return f"{len(sale.pendencias)} ({reasons})"

    @admin.display(description=_label("django.admin.label.created"), ordering="created_at")
    def created(self, obj: models.Sale) -> _dt.datetime | None:
        """When its first attempt was journaled."""
        return _when(obj.created_at)

    @admin.display(description=_label("django.admin.label.updated"), ordering="updated_at")
    def updated(self, obj: models.Sale) -> _dt.datetime | None:
        """When it last changed."""
        sale = _sale(obj)
        return _when(obj.updated_at) if sale is None else sale.updated_at

    @admin.display(description=_label("django.admin.label.attempts"))
    def attempts(self, obj: models.Sale) -> SafeString:
        """Each attempt: referencia, state, amount, terminal, method, event, abandon."""
        data = _sale_data(obj) or {}
        rows = []
        for attempt in data.get("attempts", ()):
            abandoned = attempt["abandoned"]
            rows.append(
                (
                    attempt["referencia"],
                    attempt["state"],
                    _centavos(attempt["valor_centavos"]),
                    attempt["smartpos_id"],
                    attempt["forma_pagamento"],
                    _iso(attempt["created_at"]),
                    None if attempt["event"] is None else attempt["event"]["tipo"],
                    None
                    if abandoned is None
                    else message(
                        "django.admin.abandoned_by",
                        operador=abandoned["operador"] or "?",
                        motivo=abandoned["motivo"],
                    ),
                )
            )
        return _table(
            [
                "referencia",
                message("django.admin.label.state"),
                message("django.admin.label.amount"),
                "smartposId",
                "formaPagamento",
                message("django.admin.label.created"),
                message("django.admin.label.event"),
                message("django.admin.label.abandoned"),
            ],
            rows,
        )

    @admin.display(description=_label("django.admin.label.approvals"))
    def approval_list(self, obj: models.Sale) -> SafeString:
        """The counted approvals, the customer's document masked."""
        data = _sale_data(obj) or {}
        return _table(
            [
                "id",
                "referencia",
                message("django.admin.label.amount"),
                "formaPagamento",
                "parcelas",
                "smartposId",
                "documentoCliente",
            ],
            (
                (
                    a["id"],
                    a["referencia"],
                    _centavos(a["valor_centavos"]),
                    a["forma_pagamento"],
                    a["parcelas"],
                    a["smartpos_id"],
                    a["documento_cliente"],
                )
                for a in data.get("approvals", ())
            ),
        )

    @admin.display(description=_label("django.admin.label.pendencias"))
    def pendencia_list(self, obj: models.Sale) -> SafeString:
        """What needs a human: reason, attempt, since when, the event, the compensation."""
        data = _sale_data(obj) or {}
        return _table(
            [
                message("django.admin.label.reason"),
                "referencia",
                message("django.admin.label.since"),
                message("django.admin.label.event"),
                "documentoCliente",
                message("django.admin.label.compensation"),
            ],
            (
                (
                    p["reason"],
                    p["referencia"],
                    _iso(p["since"]),
                    None if p["event"] is None else f"{p['event']['tipo']} {p['event']['id']}",
                    p["documento_cliente"],
                    None
                    if p["compensation"] is None
                    else f"{p['compensation']['referencia']} ({p['compensation']['state']})",
                )
                for p in data.get("pendencias", ())
            ),
        )

    @admin.display(description=_label("django.admin.label.compensations"))
    def compensation_list(self, obj: models.Sale) -> SafeString:
        """The compensation refunds and the attempt each refunds."""
        data = _sale_data(obj) or {}
        return _table(
            [
                "referencia",
                message("django.admin.label.state"),
                message("django.admin.label.compensates"),
                message("django.admin.label.created"),
            ],
            (
                (c["referencia"], c["state"], c["compensates"], _iso(c["created_at"]))
                for c in data.get("compensations", ())
            ),
        )

    @admin.action(description=_label("django.admin.action.abandon"), permissions=["change"])
    def abandon(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        """Give up each selected sale's open attempt, with a reason asked first.

        ``client.abandon(sale_id, motivo=..., operador=<the admin user>)``: nothing is sent.
        """
        form = _abandon_form()(request.POST if "apply" in request.POST else None)
        if form.is_bound and form.is_valid():
            try:
                client = _client(_acting_store())
            except _Refused as refused:
                _report(request, refused)
                return None
            operador = request.user.get_username() or None
            for sale_id in queryset.values_list("sale_id", flat=True):
                self._abandon_one(request, client, sale_id, form.cleaned_data["motivo"], operador)
            return None
        sales = [
            (sale_id, _sale_state(sale_id))
            for sale_id in queryset.values_list("sale_id", flat=True)
        ]
        context = {
            **self.admin_site.each_context(request),
            "title": message("django.admin.abandon_title"),
            "intro": message("django.admin.abandon_intro"),
            "submit": message("django.admin.abandon_submit"),
            "sales": sales,
            "form": form,
            "pks": [str(pk) for pk in queryset.values_list("pk", flat=True)],
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "smartpos/admin/abandon.html", context)

    @staticmethod
    def _abandon_one(
        request: HttpRequest, client: Client, sale_id: str, motivo: str, operador: str | None
    ) -> None:
        from smartpos import SmartPOSError

        try:
            earlier = _abandoned_before(sale_id)
            sale = client.abandon(sale_id, motivo=motivo, operador=operador)
        except SmartPOSError as exc:
            messages.error(request, message("django.admin.failed", sale=sale_id, problem=exc))
            return
        given_up = [
            o.referencia for o in sale.attempts if o.abandoned and o.referencia not in earlier
        ]
        if given_up:
            messages.success(
                request,
                message(
                    "django.admin.abandoned",
                    sale=sale_id,
                    referencias=", ".join(given_up),
                    state=sale.state,
                ),
            )
        else:
            messages.warning(
                request, message("django.admin.nothing_to_abandon", sale=sale_id, state=sale.state)
            )

    @admin.action(description=_label("django.admin.action.compensate"), permissions=["change"])
    def compensate(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        """Refund each late approval of the selected sales, once (``client.compensate``)."""
        from smartpos import SmartPOSError

        try:
            client = _client(_acting_store())
        except _Refused as refused:
            _report(request, refused)
            return
        for sale_id in queryset.values_list("sale_id", flat=True):
            try:
                operations = client.compensate(sale_id)
            except SmartPOSError as exc:
                messages.error(request, message("django.admin.failed", sale=sale_id, problem=exc))
                continue
            if not operations:
                messages.info(request, message("django.admin.no_late_approval", sale=sale_id))
                continue
            states = ", ".join(f"{op.referencia} ({op.state})" for op in operations)
            unsettled = [op for op in operations if op.state in ("sending", "unknown", "rejected")]
            level = messages.warning if unsettled else messages.success
            level(request, message("django.admin.compensated", sale=sale_id, refunds=states))


def _abandoned_before(sale_id: str) -> set[str]:
    """The attempts of a sale abandoned already (to tell which ones this action gave up)."""
    sale = admin_store().sale(sale_id)
    return set() if sale is None else {o.referencia for o in sale.attempts if o.abandoned}


def _sale_state(sale_id: str) -> str:
    sale = admin_store().sale(sale_id)
    return "-" if sale is None else sale.state


# --- operations -----------------------------------------------------------------------------


@admin.register(models.Operation)
class OperationAdmin(StoreOwnedAdmin):
    """The journal: each operation a client started; reconcile those whose answer was lost."""

    list_display = ("referencia", "kind", "state", "sale", "created", "updated")
    list_filter = ("state", "kind")
    search_fields = ("referencia", "sale")
    ordering = ("-seq",)
    fields = (
        "referencia",
        "kind",
        "current_state",
        "sale",
        "method",
        "path",
        "created",
        "updated",
        "outcome",
        "anomalies",
        "abandon",
        "answer_json",
        "request_json",
    )
    readonly_fields = fields
    actions = ("reconcile",)

    @admin.display(description=_label("django.admin.label.created"), ordering="created_at")
    def created(self, obj: models.Operation) -> _dt.datetime | None:
        """When it was journaled."""
        return _when(obj.created_at)

    @admin.display(description=_label("django.admin.label.updated"), ordering="updated_at")
    def updated(self, obj: models.Operation) -> _dt.datetime | None:
        """When its state last changed."""
        return _when(obj.updated_at)

    @staticmethod
    def _operation(obj: models.Operation) -> Any:
        if not hasattr(obj, "_smartpos_operation"):
            obj._smartpos_operation = admin_store().operation(obj.referencia)  # type: ignore[attr-defined]
        return obj._smartpos_operation  # type: ignore[attr-defined]

    @admin.display(description=_label("django.admin.label.state"))
    def current_state(self, obj: models.Operation) -> str:
        """The state as the store resolves it now (an outcome stored since is recorded)."""
        operation = self._operation(obj)
        return obj.state if operation is None else str(operation.state)

    @admin.display(description=_label("django.admin.label.event"))
    def outcome(self, obj: models.Operation) -> str:
        """The final event: its tipo and id."""
        operation = self._operation(obj)
        event = None if operation is None else operation.event
        return "-" if event is None else f"{event.tipo} {event.id}"

    @admin.display(description=_label("django.admin.label.anomalies"))
    def anomalies(self, obj: models.Operation) -> SafeString:
        """Events with this referencia not taken as its outcome."""
        operation = self._operation(obj)
        return _table(
            ["id", "tipo", message("django.admin.label.reason"), "detail"],
            ()
            if operation is None
            else ((a.id, a.tipo, a.reason, a.detail) for a in operation.anomalies),
        )

    @admin.display(description=_label("django.admin.label.abandoned"))
    def abandon(self, obj: models.Operation) -> str:
        """Who gave the attempt up, why and when."""
        operation = self._operation(obj)
        given_up = None if operation is None else operation.abandoned
        if given_up is None:
            return "-"
        return message(
            "django.admin.abandoned_by", operador=given_up.operador or "?", motivo=given_up.motivo
        )

    @admin.display(description=_label("django.admin.label.answer"))
    def answer_json(self, obj: models.Operation) -> SafeString | str:
        """The service's saved 2xx answer, the document masked."""
        operation = self._operation(obj)
        answer = None if operation is None else operation.answer
        return "-" if answer is None else _masked_json(dict(answer.body))

    @admin.display(description=_label("django.admin.label.request"))
    def request_json(self, obj: models.Operation) -> SafeString | str:
        """The journaled request's body, the document masked."""
        try:
            data = json.loads(bytes(obj.body))
        except (ValueError, RecursionError):
            return "-"
        return _masked_json(data)

    @admin.action(description=_label("django.admin.action.reconcile"), permissions=["change"])
    def reconcile(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        """Resend each selected operation whose answer was lost, byte for byte."""
        from smartpos import OutcomeUnknownError, SmartPOSError

        try:
            client = _client(_acting_store())
        except _Refused as refused:
            _report(request, refused)
            return
        for referencia in queryset.values_list("referencia", flat=True):
            try:
                operation = client.reconcile(referencia)
            except OutcomeUnknownError:
                messages.warning(
                    request, message("django.admin.still_unknown", referencia=referencia)
                )
                continue
            except SmartPOSError as exc:
                messages.error(
                    request, message("django.admin.failed", sale=referencia, problem=exc)
                )
                continue
            messages.success(
                request,
                message("django.admin.reconciled", referencia=referencia, state=operation.state),
            )


# --- events ---------------------------------------------------------------------------------


class EventStateFilter(admin.SimpleListFilter):
    """By state; ``dead`` is the dead letters."""

    title = _label("django.admin.label.state")
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        """The four states, dead letters named as such."""
        return [
            ("dead", message("django.admin.label.dead_letters")),
            ("pending", "pending"),
            ("claimed", "claimed"),
            ("done", "done"),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any] | None:
        """The events in that state."""
        if self.value() not in ("dead", "pending", "claimed", "done"):
            return None
        return cast("QuerySet[Any]", queryset.filter(state=self.value()))


def _envelope(obj: models.Event) -> Any:
    try:
        return json.loads(obj.raw)
    except (ValueError, RecursionError):
        return None


@admin.register(models.Event)
class EventAdmin(StoreOwnedAdmin):
    """The inbox: events with their attempts and errors; requeue dead (or done) ones."""

    list_display = ("event_id", "tipo", "state", "attempts", "error", "documento", "received")
    list_filter = (EventStateFilter, "tipo")
    search_fields = ("event_id", "tipo", "referencia")
    ordering = ("-seq",)
    fields = (
        "event_id",
        "tipo",
        "state",
        "attempts",
        "created",
        "received",
        "available",
        "owner",
        "lease_expires",
        "last_error",
        "done",
        "referencia",
        "envelope",
    )
    readonly_fields = fields
    actions = ("requeue",)

    @admin.display(description=_label("django.admin.label.last_error"))
    def error(self, obj: models.Event) -> str:
        """The last error, cut to one line."""
        text = (obj.last_error or "").strip().splitlines()
        if not text:
            return "-"
        line = text[0]
        return line if len(line) <= 120 else line[:119] + "…"

    @admin.display(description="documentoCliente")
    def documento(self, obj: models.Event) -> str:
        """The customer's document, masked (LGPD)."""
        from smartpos import mask_documento

        raw = _envelope(obj)
        dados = raw.get("dados") if isinstance(raw, dict) else None
        documento = dados.get("documentoCliente") if isinstance(dados, dict) else None
        return "-" if documento is None else mask_documento(documento)

    @admin.display(description="criadoEm", ordering="criado_em")
    def created(self, obj: models.Event) -> _dt.datetime | None:
        """The service's time of the event."""
        return _when(obj.criado_em)

    @admin.display(description=_label("django.admin.label.received"), ordering="received_at")
    def received(self, obj: models.Event) -> _dt.datetime | None:
        """When the inbox stored it."""
        return _when(obj.received_at)

    @admin.display(description=_label("django.admin.label.available"))
    def available(self, obj: models.Event) -> _dt.datetime | None:
        """When it may next be claimed (pending or claimed only)."""
        return _when(obj.available_at)

    @admin.display(description=_label("django.admin.label.lease_expires"))
    def lease_expires(self, obj: models.Event) -> _dt.datetime | None:
        """When the current claim's lease runs out."""
        return _when(obj.lease_expires_at)

    @admin.display(description=_label("django.admin.label.done"))
    def done(self, obj: models.Event) -> _dt.datetime | None:
        """When a handler finished it."""
        return _when(obj.done_at)

    @admin.display(description=_label("django.admin.label.envelope"))
    def envelope(self, obj: models.Event) -> SafeString | str:
        """The envelope, pretty-printed, the customer's document masked."""
        raw = _envelope(obj)
        return "-" if raw is None else _masked_json(raw)

    @admin.action(description=_label("django.admin.action.requeue"), permissions=["change"])
    def requeue(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        """Make each selected dead or done event pending again (``store.requeue``)."""
        from smartpos.webhooks import StoreError

        try:
            store = _acting_store()
        except _Refused as refused:
            _report(request, refused)
            return
        requeued: list[str] = []
        skipped: list[str] = []
        event_id = ""
        try:
            for event_id in queryset.values_list("event_id", flat=True):
                (requeued if store.requeue(event_id) else skipped).append(event_id)
        except StoreError as exc:  # the store is down: the rest would fail alike
            messages.error(request, message("django.admin.failed", sale=event_id, problem=exc))
        if requeued:
            messages.success(
                request,
                message("django.admin.requeued", count=len(requeued), ids=", ".join(requeued)),
            )
        if skipped:
            messages.warning(request, message("django.admin.not_requeued", ids=", ".join(skipped)))
