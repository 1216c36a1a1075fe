"""The app's real first migration."""

from importlib import import_module

Migration = import_module("smartpos.integrations.django.migrations.0001_initial").Migration
