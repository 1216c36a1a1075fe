"""DjangoStore on PostgreSQL: every store contract and race, one database per store (made
from a migrated template on the session's server), and its LISTEN/NOTIFY wake-ups."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

pytest.importorskip("django")

from django_store_suites import DjangoStoreSuites, NewDatabase
from django_stores import postgres_database, setup_django
from servers import PostgresServer, require_module

from smartpos.webhooks import EventState, PutResult

require_module("psycopg", "psycopg (pip install 'smartpos[postgres]')")

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture(scope="module")
def new_database(
    postgres_server: PostgresServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[NewDatabase]:
    """New databases from a migrated template, a new alias each."""
    setup_django(tmp_path_factory.mktemp("django"))
    yield from postgres_database(postgres_server.dsn, postgres_server.port)


class TestStore(DjangoStoreSuites.TestStore):
    """The inbox contract on PostgreSQL."""


class TestJournal(DjangoStoreSuites.TestJournal):
    """The journal contract on PostgreSQL."""


class TestSales(DjangoStoreSuites.TestSales):
    """The sales contract on PostgreSQL."""


class TestAckMany(DjangoStoreSuites.TestAckMany):
    """ack_many in one statement per batch on PostgreSQL."""


class TestExactIds(DjangoStoreSuites.TestExactIds):
    """Ids and referencias compare byte for byte on PostgreSQL."""


class TestListener(DjangoStoreSuites.TestListener):
    """The waking contract on PostgreSQL (LISTEN/NOTIFY)."""


class TestRaces(DjangoStoreSuites.TestRaces):
    """Processes racing on one PostgreSQL database."""


def test_postgres_wakes_through_listen_notify(new_database: NewDatabase) -> None:
    """On PostgreSQL the change source is LISTEN/NOTIFY, not a check interval."""
    from django_stores import add_database, drop_database

    from smartpos.integrations.django import DjangoStore
    from smartpos.webhooks._listener import PostgresChanges

    alias, config = new_database()
    add_database(alias, config)
    try:
        with DjangoStore(alias) as store:
            assert isinstance(store._change_source(), PostgresChanges)
    finally:
        drop_database(alias)


def _purging_before_the_hash_read(
    times: int, seen: list[str]
) -> Callable[[Callable[..., Any], str, Any, bool, dict[str, Any]], Any]:
    """An ``execute_wrapper`` that purges the event right before its hash is read, ``times``
    times (another process's ``purge()`` between the store's insert and its read)."""
    from smartpos.integrations.django import _store

    def wrapper(
        execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict[str, Any]
    ) -> Any:
        seen.append(sql)
        if sql == _store._HASH and sum(s == _store._HASH for s in seen) <= times:
            execute(f"DELETE FROM {_store._EVENTS} WHERE event_id = %s", params, False, context)
        return execute(sql, params, many, context)

    return wrapper


@pytest.mark.parametrize("in_transaction", [False, True], ids=["autocommit", "in-transaction"])
def test_an_event_purged_between_insert_and_read_is_stored_again(
    new_database: NewDatabase, in_transaction: bool
) -> None:
    """A put that finds the event present, then gone (purged meanwhile), stores it again."""
    from django.db import connections, transaction
    from django_stores import add_database, drop_database
    from store_contract import make_event

    from smartpos.integrations.django import DjangoStore, _store

    alias, config = new_database()
    add_database(alias, config)
    try:
        with DjangoStore(alias) as store:
            assert store.put(make_event("ev-purged")) is PutResult.NEW
            seen: list[str] = []
            with contextlib.ExitStack() as stack:
                stack.enter_context(
                    connections[alias].execute_wrapper(_purging_before_the_hash_read(1, seen))
                )
                if in_transaction:
                    stack.enter_context(transaction.atomic(using=alias))
                assert store.put(make_event("ev-purged")) is PutResult.NEW
            assert [s for s in seen if s == _store._PG_PUT_ONE] == [_store._PG_PUT_ONE] * 2
            stored = store.get("ev-purged")
            assert stored is not None
            assert stored.state is EventState.PENDING
    finally:
        drop_database(alias)


def test_an_event_purged_at_every_try_gives_up_with_a_store_error(
    new_database: NewDatabase,
) -> None:
    """Purged between insert and read at every try: a bounded number of tries, then a
    ``StoreError`` that says nothing was stored (it used to recurse without bound)."""
    from django.db import connections
    from django_stores import add_database, drop_database
    from store_contract import make_event

    from smartpos._messages import message
    from smartpos.integrations.django import DjangoStore, _store
    from smartpos.webhooks import StoreError

    alias, config = new_database()
    add_database(alias, config)
    try:
        with DjangoStore(alias) as store:
            seen: list[str] = []

            def present_then_gone(
                execute: Callable[..., Any], sql: str, params: Any, many: bool, ctx: Any
            ) -> Any:
                # Another process stores the event before each insert, and purges it before
                # each read of its hash.
                seen.append(sql)
                table = _store._EVENTS
                if sql == _store._PG_PUT_ONE:
                    execute(
                        f"INSERT INTO {table} (event_id, tipo, raw, body_hash, state, attempts, "
                        "received_at, available_at) VALUES (%s, 'x', '{}', 'h', 'done', 1, 0, "
                        "NULL)",
                        (params[0],),
                        False,
                        ctx,
                    )
                elif sql == _store._HASH:
                    execute(f"DELETE FROM {table} WHERE event_id = %s", params, False, ctx)
                return execute(sql, params, many, ctx)

            with (
                connections[alias].execute_wrapper(present_then_gone),
                pytest.raises(StoreError) as raised,
            ):
                store.put(make_event("ev-vanishing"))
            assert raised.value.applied is False
            assert str(raised.value) == message(
                "django.store_put_vanished", alias=alias, attempts=3
            )
            assert [s for s in seen if s == _store._PG_PUT_ONE] == [_store._PG_PUT_ONE] * 3
            assert store.get("ev-vanishing") is None
    finally:
        drop_database(alias)
