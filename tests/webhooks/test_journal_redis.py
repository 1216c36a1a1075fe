"""RedisStore against a real redis-server: the journal and sales contracts, their keys, and
races."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from journal_contract import JournalContract, begin_payment
from journal_races import race_begins, race_outcomes
from outcome_events import REFERENCIA, event
from races import StoreSpec
from sales_contract import SalesContract, approve, attempt, compensation, refs, refuse
from sales_races import race_one_sale, race_one_terminal
from servers import RedisServer, require_module
from store_contract import StoreFactory, closing_factory

redis = require_module("redis", "the redis client (pip install 'smartpos[redis]')")
from smartpos.webhooks._outcomes import Abandon  # noqa: E402
from smartpos.webhooks._redis import RedisStore  # noqa: E402
from smartpos.webhooks._store_interface import _utc  # noqa: E402

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
        f"{{{prefix}}}:salewatch".encode(),
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


def _watched(client: Any, prefix: str) -> dict[str, int]:
    """The review's watch: sale id -> sale number."""
    watch = client.zrange(f"{{{prefix}}}:salewatch", 0, -1, withscores=True)
    return {sale.decode(): int(seq) for sale, seq in watch}


def test_the_review_watch_holds_only_sales_that_may_need_a_human(
    redis_server: RedisServer, client: Any
) -> None:
    """Each sale enters the watch with its attempt; a quiet paid sale leaves it once its
    approval is recorded (the review reads it) and comes back with a duplicate approval, a
    refused attempt without events leaves it and comes back when the refusal turns out to be
    an acceptance; a contradiction and a silent attempt stay: the review's index stays as
    small as what may need a human."""
    prefix = new_prefix()
    quiet, contradicted, silent, refused = refs(4, prefix="3a7c")
    with RedisStore(redis_server.url, prefix=prefix, check_settings=False) as store:
        attempt(store, quiet, "quiet", smartpos_id="SP-1")
        attempt(store, contradicted, "contradicted", smartpos_id="SP-2")
        attempt(store, silent, "silent", smartpos_id="SP-3")
        attempt(store, refused, "refused", smartpos_id="SP-4")
        approve(store, quiet)
        refuse(store, contradicted)
        approve(store, contradicted)
        entered = _watched(client, prefix)

        reviewed = [s.sale_id for s in store.sales(attention=True)]
        after_review = _watched(client, prefix)
        store._record_operation(refused, "rejected")
        after_refusal = _watched(client, prefix)
        store._record_operation(refused, "accepted")
        after_acceptance = _watched(client, prefix)
        approve(store, quiet, n=1)  # a duplicate, after the sale left the watch
        after_duplicate = _watched(client, prefix)
        duplicate = [
            (s.sale_id, [p.reason for p in s.pendencias]) for s in store.sales(attention=True)
        ]

    assert {"quiet": 1, "contradicted": 2, "silent": 3, "refused": 4} == entered
    assert ["contradicted"] == reviewed
    assert {"contradicted": 2, "silent": 3, "refused": 4} == after_review
    assert {"contradicted": 2, "silent": 3} == after_refusal
    assert {"contradicted": 2, "silent": 3, "refused": 4} == after_acceptance
    assert {"quiet": 1, "contradicted": 2, "silent": 3, "refused": 4} == after_duplicate
    assert [("quiet", ["duplicate"]), ("contradicted", ["contradiction"])] == duplicate


def test_many_quiet_paid_sales_leave_an_empty_watch(redis_server: RedisServer, client: Any) -> None:
    """Sales paid by one approval each and read once (as a client waiting for it does): the
    watch is empty, so the review reads nothing whatever the number of sales."""
    prefix = new_prefix()
    with RedisStore(redis_server.url, prefix=prefix, check_settings=False) as store:
        for n, referencia in enumerate(refs(40, prefix="9a1d")):
            attempt(store, referencia, f"s{n:02d}", smartpos_id=f"T{n}")
            approve(store, referencia)
            assert store.operation(referencia).state == "final"  # type: ignore[union-attr]

        assert ({}, []) == (_watched(client, prefix), store.sales(attention=True))
        assert 40 == len(store.sales(state="paid"))


def test_an_abandon_recorded_after_the_approval_puts_the_sale_back(
    redis_server: RedisServer, client: Any
) -> None:
    """An abandon that lands on an attempt whose approval was recorded meanwhile (its checks
    read it open): the approval is a late one, so the sale is watched again."""
    prefix = new_prefix()
    [paid] = refs(1, prefix="ab4d")
    with RedisStore(redis_server.url, prefix=prefix, check_settings=False) as store:
        attempt(store, paid)
        approve(store, paid)
        store.sale("mesa-1")
        before = _watched(client, prefix)
        now = time.time()
        record = Abandon(motivo="desistiu", operador=None, at=_utc(now)).to_json()

        assert store._sale_abandon(paid, record, now)

        reasons = [[p.reason for p in s.pendencias] for s in store.sales(attention=True)]
    assert ({}, {"mesa-1": 1}) == (before, _watched(client, prefix))
    assert [["late_approval"]] == reasons


def test_put_counts_the_events_of_sale_attempts_only(
    redis_server: RedisServer, client: Any
) -> None:
    """The put script counts an event on its referencia's operation only when that is a
    payment attempt of a sale; the attempt's journal write counts the events stored before it
    (not one whose hash the TTL removed); an abandoned attempt with an event stays watched once
    final, a compensation refund's event counts nothing."""
    prefix = new_prefix()
    early, late = refs(2, prefix="c0c0")

    def count(referencia: str) -> int | None:
        value = client.hget(f"{{{prefix}}}:op:{referencia}", "ev")
        return None if value is None else int(value)

    with RedisStore(redis_server.url, prefix=prefix, check_settings=False) as store:
        begin_payment(store)  # no sale
        store.put(event("ev-plain"))
        refuse(store, early)
        store.put(event("ev-expired", "pagamento.aprovado", early))
        client.delete(f"{{{prefix}}}:ev:ev-expired")
        attempt(store, early, "a")
        counted_early = count(early)
        assert "pagamento.recusado" == store.operation(early).event.tipo  # type: ignore[union-attr]
        watched_early = _watched(client, prefix)  # final with one event: out
        approve(store, early)
        contradicted = (count(early), _watched(client, prefix))

        attempt(store, late, "b", smartpos_id="SP-2")
        store._abandon("b", motivo="desistiu", operador=None)
        approve(store, late)
        assert "final" == store.operation(late).state  # type: ignore[union-attr]
        late_approval = (count(late), _watched(client, prefix))  # abandoned with one event: in
        refund, _ = compensation(store, late, "b")
        store._record_operation(refund.referencia, "accepted")
        store.put(event("ev-refund", "pagamento.aprovado", refund.referencia))
        counts = (count(REFERENCIA), count(refund.referencia))
        # The compensated late approval needs no human, though its sale stays watched.
        reviewed = [s.sale_id for s in store.sales(attention=True)]

    assert 1 == counted_early
    assert {} == watched_early
    assert (2, {"a": 1}) == contradicted
    assert (1, {"a": 1, "b": 2}) == late_approval
    assert (None, None) == counts
    assert ["a"] == reviewed
    assert {"a": 1, "b": 2} == _watched(client, prefix)


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
