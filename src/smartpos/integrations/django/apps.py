"""The Django application: add ``"smartpos.integrations.django"`` to ``INSTALLED_APPS``."""

from __future__ import annotations

from django.apps import AppConfig

__all__ = ["SmartPOSConfig"]


class SmartPOSConfig(AppConfig):
    """Registers the system checks and the ``smartpos_worker`` management command."""

    name = "smartpos.integrations.django"
    label = "smartpos"
    verbose_name = "smartpos"

    def ready(self) -> None:
        """Register the checks and forget cached clients when ``SMARTPOS`` changes (tests)."""
        from django.core import checks
        from django.core.signals import setting_changed

        from . import _state
        from .checks import (
            check_settings,
            check_store_server,
            check_store_tables,
            check_webhook_secret,
        )

        checks.register(check_settings, "smartpos")
        checks.register(check_store_server, "smartpos", deploy=True)
        checks.register(check_store_tables, "smartpos", checks.Tags.database)
        # Where deliveries are received only: `check --deploy` (and smartpos_worker runs it).
        checks.register(check_webhook_secret, "smartpos", deploy=True)
        setting_changed.connect(_state.on_setting_changed, dispatch_uid="smartpos-settings")
