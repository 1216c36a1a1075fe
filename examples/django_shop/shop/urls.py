"""The shop's URLs; the webhook URL to configure in the partner portal is /webhooks/smartpos/."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from smartpos.integrations.django.status_urls import status_urls
from smartpos.integrations.django.views import async_webhook

from . import checkout, payments

urlpatterns = [
    path("admin/", admin.site.urls),  # the smartpos pages need view/change permissions
    # Under a WSGI server (runserver, gunicorn): the sync view.
    path("webhooks/smartpos/", include("smartpos.integrations.django.urls")),
    # Under an ASGI server (uvicorn shop.asgi:application): the async view does not block
    # the event loop. A real project routes only the one that matches its server.
    path("webhooks/smartpos-async/", async_webhook),
    path("pair/<str:documento>/", payments.pair_terminal),
    path("charge/", payments.charge),
    path("orders/", payments.new_order),
    # The cashier's screen: the status endpoints behind the shop's own rule (staff only),
    # the checkout page of an order, its two actions, and the pairing page.
    path("caixa/smartpos/", include(status_urls(authorize=checkout.may_see))),
    path("caixa/parear/", checkout.pairing_page),
    path("caixa/parear/novo", checkout.pair),
    path("caixa/<str:numero>/", checkout.page),
    path("caixa/<str:numero>/cobrar", checkout.charge),
    path("caixa/<str:numero>/abandonar", checkout.abandon),
]
