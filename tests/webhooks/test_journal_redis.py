"""RedisStore against a real redis-server: the journal and sales contracts, their keys, and
races."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from journal_contract import JournalContract, begin_payment
from journal_races import race_begins, race_outcomes
from outcome_events import REFERENCIA, event
from races import StoreSpec
from sales_contract import SalesContract, approve, attempt, compensation, refs
from sales_races import race_one_sale, race_one_terminal
from servers import RedisServer, require_module
from store_contract import StoreFactory, closing_factory

redis = require_module("redis", "the redis client (pip install 'smartpos[redis]')")
from smartpos.webhooks._redis import RedisStore  # noqa: E402

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def new_prefix() -> str:
    """A prefix no other test uses, so that stores on the shared server start empty."""
    return f"j{uuid.uuid4().hex[:12]}"


class TestRedisJournal(JournalContract):
    """The journal contract on RedisStore, one key prefix per store."""

    @pytest.fixture
    def make_store(self, redis_server: RedisServer) -> Iterator[StoreFactory]:
        """Fresh RedisStores with their own prefixes on the session's server, closed after."""

        def create(**options: Any) -> RedisStore:
            return RedisStore(
                redis_server.url, prefix=new_prefix(), check_settings=False, **options
            )

        with closing_factory(create) as factory:
            yield factory


class TestRedisSales(SalesContract):
    """The sales contract on RedisStore, one key prefix per store."""

    @pytest.fixture
    def make_store(self, redis_server: RedisServer) -> Iterator[StoreFactory]:
        """Fresh RedisStores with their own prefixes on the session's server, closed after."""

        def create(**options: Any) -> RedisStore:
            return RedisStore(
                redis_server.url, prefix=new_prefix(), check_settings=False, **options
            )

        with closing_factory(create) as factory:
            yield factory


@pytest.fixture
def client(redis_server: RedisServer) -> Iterator[Any]:
    """A raw redis-py client on the test server, closed after the test."""
    raw = redis.Redis.from_url(redis_server.url)
    yield raw
    raw.close()


def test_journal_keys_are_declared_and_share_the_slot(
    redis_server: RedisServer, client: Any
) -> None:
    """Every key the journal writes is named by keys() and carries the store's hash tag."""
    prefix = new_prefix()
    with RedisStore(redis_server.url, prefix=prefix, check_settings=False) as store:
        begin_payment(store)
        store._record_operation(REFERENCIA, "rejected")
        store.put(event("ev-1"))
        declared = store.keys("ev-1", referencias=[REFERENCIA])

    written = sorted(client.scan_iter(match=f"*{prefix}*"))

    assert set(written) <= {k.encode() for k in declared}
    assert {f"{{{prefix}}}:refs".encode(), f"{{{prefix}}}:op:{REFERENCIA}".encode()} <= set(written)
    assert all(k.startswith(b"{" + prefix.encode() + b"}:") for k in written)
    assert 1 == len({redis.crc.key_slot(k) for k in written})


def test_sale_keys_are_declared_and_share_the_slot(redis_server: RedisServer, client: Any) -> None:
    """Every key a sale writes (attempts, abandon, compensation) is named by keys()."""
    prefix = new_prefix()
    late, paid = refs(2, prefix="7e57")
    with RedisStore(redis_server.url, prefix=prefix, check_settings=False) as store:
        attempt(store, late)
        store._abandon("mesa-1", motivo="desistiu", operador=None)
        attempt(store, paid, smartpos_id="SP-2")
        approve(store, paid)
        approve(store, late)
        refund, _ = compensation(store, late)
        operations = [late, paid, refund.referencia]
        declared = store.keys(
            f"ev-ok-{late}-0",
            f"ev-ok-{paid}-0",
            referencias=operations,
            sales=["mesa-1"],
            terminals=["SP-1", "SP-2"],
        )

    written = set(client.scan_iter(match=f"*{prefix}*"))

    assert written <= {k.encode() for k in declared}
    assert {
        f"{{{prefix}}}:sale:mesa-1".encode(),
        f"{{{prefix}}}:saleops:mesa-1".encode(),
        f"{{{prefix}}}:sales".encode(),
        f"{{{prefix}}}:terminal:SP-1".encode(),
    } <= written
    assert 3 == client.zcard(f"{{{prefix}}}:saleops:mesa-1")
    assert 1 == len({redis.crc.key_slot(k) for k in written})


def test_sale_keys_do_not_collide_with_sale_ids_that_look_like_keys(
    redis_server: RedisServer,
) -> None:
    """Sale ids shaped like another sale's key suffix stay two sales, each with its attempt."""
    first, second = refs(2, prefix="c011")
    with RedisStore(redis_server.url, prefix=new_prefix(), check_settings=False) as store:
        attempt(store, first, "x", smartpos_id="SP-1")
        attempt(store, second, "ops:x", smartpos_id="SP-2")

        sales = {s.sale_id: [a.referencia for a in s.attempts] for s in store.sales()}

    assert {"x": [first], "ops:x": [second]} == sales


def test_index_entry_of_an_expired_event_is_dropped_on_read(
    redis_server: RedisServer, client: Any
) -> None:
    """An event whose hash the TTL removed is skipped, and its index entry removed, on read."""
    prefix = new_prefix()
    with RedisStore(redis_server.url, prefix=prefix, check_settings=False) as store:
        store.put_many([event("gone"), event("kept", "pagamento.recusado")])
        client.delete(f"{{{prefix}}}:ev:gone")

        outcome = store._outcome(REFERENCIA)

    assert outcome is not None
    assert "kept" == outcome.id
    members = client.zrange(f"{{{prefix}}}:refs", 0, -1)
    assert 1 == len(members)
    assert members[0].endswith(b":kept")


@pytest.fixture
def spec(redis_server: RedisServer) -> StoreSpec:
    """A fresh prefix on the session's server that each process opens on its own."""
    return StoreSpec(
        RedisStore, (redis_server.url,), {"prefix": new_prefix(), "check_settings": False}
    )


def test_processes_beginning_the_same_referencias(spec: StoreSpec) -> None:
    """Four processes journaling the same 60 referencias: each is journaled exactly once."""
    race_begins(spec, processes=4, referencias=60)


def test_processes_settling_outcomes(spec: StoreSpec) -> None:
    """Approvals and refusals from two processes, two readers: one outcome each, forever."""
    race_outcomes(spec, referencias=40)


def test_processes_charging_one_sale(spec: StoreSpec) -> None:
    """Four processes charge one sale at once, 25 rounds: exactly one attempt each round."""
    race_one_sale(spec, processes=4, rounds=25)


def test_processes_charging_sales_on_one_terminal(spec: StoreSpec) -> None:
    """Four processes charge four sales on one terminal, 25 rounds: exactly one sends each."""
    race_one_terminal(spec, processes=4, rounds=25)
