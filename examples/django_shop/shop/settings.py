"""Settings of the example shop; everything that differs per machine comes from the environment.

Run it::

    pip install "smartpos[django]"
    export SMARTPOS_API_KEY=... SMARTPOS_BASE_URL=... SMARTPOS_WEBHOOK_SECRET=change-me
    python manage.py migrate                   # the shop's orders and smartpos's tables
    python manage.py runserver                 # the shop and its webhook URL
    python manage.py smartpos_worker           # another terminal: processes the events
"""

from __future__ import annotations

import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "insecure-example-key-change-me")
DEBUG = os.environ.get("DJANGO_DEBUG", "") == "1"
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]

INSTALLED_APPS = [
    "django.contrib.admin",  # the smartpos pages: sales, operations, events
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "smartpos.integrations.django",  # checks, models, admin, smartpos_worker, smartpos_copy
    "shop",
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]
ROOT_URLCONF = "shop.urls"
WSGI_APPLICATION = "shop.wsgi.application"
ASGI_APPLICATION = "shop.asgi.application"
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("DJANGO_DB", str(BASE_DIR / "shop.sqlite3")),
    }
}
if os.environ.get("SHOP_POSTGRES_NAME"):  # the same shop on PostgreSQL (its tests run on both)
    DATABASES["default"] = {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": os.environ["SHOP_POSTGRES_NAME"],
        "HOST": os.environ.get("SHOP_POSTGRES_HOST", "127.0.0.1"),
        "PORT": os.environ.get("SHOP_POSTGRES_PORT", "5432"),
        "USER": os.environ.get("SHOP_POSTGRES_USER", "postgres"),
        "PASSWORD": os.environ.get("SHOP_POSTGRES_PASSWORD", ""),
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
TIME_ZONE = "America/Sao_Paulo"

SMARTPOS = {
    # API_KEY and BASE_URL default to the environment (SMARTPOS_API_KEY, SMARTPOS_BASE_URL).
    # The inbox, journal and sales in the shop's own database (python manage.py migrate).
    "STORE": os.environ.get("SMARTPOS_STORE", "django://default"),
    "WEBHOOK_SECRET": os.environ.get("SMARTPOS_WEBHOOK_SECRET"),
    "HANDLER": "shop.payments.handle_event",
    # Once per sale effect, in the transaction that consumes the event: marks the order paid.
    "ON_SALE": "shop.payments.on_sale",
    "WORKER_OPTIONS": {"poll_interval": 0.5},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"shop": {"handlers": ["console"], "level": "INFO"}},
}
