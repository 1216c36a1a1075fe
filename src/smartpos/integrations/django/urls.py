"""URLs of the webhook view, for WSGI servers.

``path("webhooks/smartpos/", include("smartpos.integrations.django.urls"))``

The view is the synchronous one. Under an ASGI server route
``smartpos.integrations.django.views.async_webhook`` yourself, or include
``smartpos.integrations.django.async_urls``.
"""

from __future__ import annotations

from django.urls import path

from .views import webhook

__all__ = ["app_name", "urlpatterns"]

app_name = "smartpos"
urlpatterns = [path("", webhook, name="webhook")]
