"""URLs of the async webhook view, for ASGI servers.

``path("webhooks/smartpos/", include("smartpos.integrations.django.async_urls"))``
"""

from __future__ import annotations

from django.urls import path

from .views import async_webhook

__all__ = ["app_name", "urlpatterns"]

app_name = "smartpos"
urlpatterns = [path("", async_webhook, name="webhook")]
