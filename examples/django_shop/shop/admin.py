"""The shop's orders in the admin, beside the smartpos pages (sales, operations, events)."""

from __future__ import annotations

from django.contrib import admin

from .models import Order


@admin.register(Order)
class OrderAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Orders: what ``on_sale`` wrote is read-only (the sale's events decide it)."""

    list_display = ("numero", "total_centavos", "paid", "paid_at", "late_approvals")
    list_filter = ("paid",)
    search_fields = ("numero",)
    readonly_fields = ("paid", "paid_at", "late_approvals", "compensations")
