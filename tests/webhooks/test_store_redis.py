"""RedisStore against a real redis-server: the store contract, races, settings and key layout."""

from __future__ import annotations

import binascii
import datetime as dt
import logging
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from races import StoreSpec, race_claims, race_killed_worker, race_puts
from servers import RedisServer, _free_port, require_module
from skewed_clocks import SKEWS, check_skewed_instance, skew
from store_contract import FakeClock, StoreContract, StoreFactory, closing_factory, make_event

from smartpos import ConfigurationError
from smartpos.webhooks._store import DEFAULT_RETENTION, EventState, PutResult, StoreError

redis = require_module("redis", "the redis client (pip install 'smartpos[redis]')")
from smartpos.webhooks._redis import RedisStore, check_redis_settings  # noqa: E402

__all__: list[str] = []

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def new_prefix() -> str:
    """A prefix no other test uses, so that stores on the shared server start empty."""
    return f"t{uuid.uuid4().hex[:12]}"


@pytest.fixture
def prefix() -> str:
    """A fresh key prefix for one test."""
    return new_prefix()


@pytest.fixture
def client(redis_server: RedisServer) -> Iterator[Any]:
    """A raw redis-py client on the test server, closed after the test."""
    raw = redis.Redis.from_url(redis_server.url)
    yield raw
    raw.close()


class TestRedisStore(StoreContract):
    """The contract suite on RedisStore, one key prefix per store."""

    @pytest.fixture
    def make_store(self, redis_server: RedisServer) -> Iterator[StoreFactory]:
        """Fresh RedisStores with their own prefixes on the session's server, closed after."""

        def create(**options: Any) -> RedisStore:
            return RedisStore(
                redis_server.url, prefix=new_prefix(), check_settings=False, **options
            )

        with closing_factory(create) as factory:
            yield factory


# Key layout.


def crc16_slot(key: bytes) -> int:
    """Redis Cluster's slot of a key: CRC16/XMODEM of its hash tag (or whole name) mod 16384."""
    start = key.find(b"{")
    if start != -1:
        end = key.find(b"}", start + 1)
        if end > start + 1:
            key = key[start + 1 : end]
    crc = 0
    for byte in key:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc % 16384


def test_crc16_slot_matches_the_cluster_spec() -> None:
    """The slot helper gives the spec's CRC16 test vector and agrees with redis-py's helper."""
    from redis.crc import key_slot

    assert binascii.crc_hqx(b"123456789", 0) == 0x31C3
    assert crc16_slot(b"123456789") == 0x31C3 % 16384
    assert [key_slot(k) for k in (b"{user1000}.following", b"foo{}{bar}", b"a{b}c")] == [
        crc16_slot(k) for k in (b"{user1000}.following", b"foo{}{bar}", b"a{b}c")
    ]


def test_all_keys_of_a_store_hash_to_one_slot(
    redis_server: RedisServer, client: Any, prefix: str
) -> None:
    """Every key a store writes carries its prefix in one hash tag, so all share one slot."""
    ids = ["plain", "with {braces}", "ação-ü", "x}{y", "{other}"]
    with RedisStore(redis_server.url, prefix=prefix, check_settings=False) as store:
        store.put_many([make_event(i) for i in ids])
        first, second, third, *_ = store.claim(owner="w", lease=30, limit=5)
        store.ack(first)
        store.dead_letter(second, error="bad")
        store.nack(third, error="later", retry_in=60)
        declared = store.keys(*ids)

    written = sorted(client.scan_iter(match=f"*{prefix}*"))

    assert set(written) <= {k.encode() for k in declared}
    assert len(written) >= 9
    assert all(k.startswith(b"{" + prefix.encode() + b"}:") for k in written)
    assert len({crc16_slot(k) for k in written}) == 1
    assert {crc16_slot(k) for k in written} == {redis.crc.key_slot(k) for k in written}


def test_prefix_with_braces_is_refused(redis_server: RedisServer) -> None:
    """A prefix that would break the hash tag is a ConfigurationError."""
    with pytest.raises(ConfigurationError, match="prefix"):
        RedisStore(redis_server.url, prefix="a}b", check_settings=False)


def test_stores_with_different_prefixes_do_not_share_events(redis_server: RedisServer) -> None:
    """Two prefixes on one server are two independent inboxes."""
    with (
        RedisStore(redis_server.url, prefix=new_prefix(), check_settings=False) as one,
        RedisStore(redis_server.url, prefix=new_prefix(), check_settings=False) as two,
    ):
        one.put(make_event("ev-1"))

        put_in_two = two.put(make_event("ev-1", valor=5))
        claimed_from_one = one.claim(owner="w", lease=30, limit=5)

    assert put_in_two == PutResult.NEW
    assert [c.raw["dados"]["valorCentavos"] for c in claimed_from_one] == [1000]


# Server settings.


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The WARNING messages logged on smartpos.webhooks."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "smartpos.webhooks" and r.levelno == logging.WARNING
    ]


def test_warns_about_each_setting_that_breaks_a_guarantee(
    redis_server_unsafe: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """On a server without appendonly and with eviction, start-up names both settings."""
    with caplog.at_level(logging.INFO, logger="smartpos.webhooks"):
        store = RedisStore(redis_server_unsafe.url, prefix=new_prefix())
    store.close()

    messages = warnings_of(caplog)
    assert len(messages) == 2
    assert "appendonly" in messages[0]
    assert "'no'" in messages[0]
    assert "maxmemory-policy" in messages[1]
    assert "'allkeys-lru'" in messages[1]


def test_check_redis_settings_returns_the_broken_names(redis_server_unsafe: RedisServer) -> None:
    """check_redis_settings answers the names of the settings that break a guarantee."""
    raw = redis.Redis.from_url(redis_server_unsafe.url)
    try:
        assert check_redis_settings(raw) == ["appendonly", "maxmemory-policy"]
    finally:
        raw.close()


def test_appendfsync_no_is_reported(client: Any, redis_server: RedisServer) -> None:
    """With the append-only file on but fsync left to the OS, appendfsync is named."""
    client.config_set("appendfsync", "no")
    try:
        assert check_redis_settings(client) == ["appendfsync"]
    finally:
        client.config_set("appendfsync", "everysec")


def test_safe_settings_log_no_warning(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """appendonly yes, appendfsync everysec and noeviction give no warning, only an INFO note."""
    with caplog.at_level(logging.INFO, logger="smartpos.webhooks"):
        store = RedisStore(redis_server.url, prefix=new_prefix())
    store.close()

    assert warnings_of(caplog) == []
    assert "everysec" in caplog.text


def test_check_settings_false_reads_nothing(
    redis_server_unsafe: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """With check_settings=False the constructor logs nothing about the server."""
    with caplog.at_level(logging.INFO, logger="smartpos.webhooks"):
        store = RedisStore(redis_server_unsafe.url, prefix=new_prefix(), check_settings=False)
    store.close()

    assert caplog.records == []


def test_settings_that_cannot_be_read_are_reported(
    client: Any, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """When CONFIG is forbidden (as on managed Redis), start-up says it could not check."""
    user = f"limited-{uuid.uuid4().hex[:8]}"
    client.acl_setuser(
        user, enabled=True, passwords=["+secret"], keys=["*"], channels=["*"],
        commands=["+@all", "-config"],
    )  # fmt: skip
    url = redis_server.url.replace("redis://", f"redis://{user}:secret@")
    try:
        with caplog.at_level(logging.INFO, logger="smartpos.webhooks"):
            store = RedisStore(url, prefix=new_prefix())
        try:
            store.put(make_event("ev-1"))
            assert len(store.claim(owner="w", lease=30)) == 1
        finally:
            store.close()
    finally:
        client.acl_deluser(user)

    (message,) = warnings_of(caplog)
    assert "could not check" in message
    assert "NoPermissionError" in message


# Errors and ownership.


def test_unreachable_server_raises_store_error(caplog: pytest.LogCaptureFixture) -> None:
    """With nothing listening, construction only warns and every call raises StoreError."""
    url = f"redis://127.0.0.1:{_free_port()}/0"
    with caplog.at_level(logging.WARNING, logger="smartpos.webhooks"):
        store = RedisStore(url, prefix=new_prefix())
    try:
        with pytest.raises(StoreError, match="Redis failed"):
            store.put(make_event("ev-1"))
        with pytest.raises(StoreError):
            store.claim(owner="w", lease=30)
    finally:
        store.close()

    assert "could not check" in caplog.text


def test_closed_store_refuses_calls(redis_server: RedisServer) -> None:
    """After close(), calls raise StoreError instead of silently reconnecting."""
    store = RedisStore(redis_server.url, prefix=new_prefix(), check_settings=False)
    store.close()

    with pytest.raises(StoreError, match="closed"):
        store.put(make_event("ev-1"))


def test_a_client_passed_in_stays_open_and_may_decode(redis_server: RedisServer) -> None:
    """A caller's client (even with decode_responses=True) works and is not closed by the store."""
    raw = redis.Redis.from_url(redis_server.url, decode_responses=True)
    try:
        with RedisStore(raw, prefix=new_prefix(), check_settings=False) as store:
            store.put(make_event("ev-1"))
            (claim,) = store.claim(owner="w", lease=30)
            assert store.ack(claim) is True
            stored = store.get("ev-1")
        assert stored is not None
        assert stored.state == EventState.DONE
        assert raw.ping() is True
    finally:
        raw.close()


def test_wrong_client_type_is_refused() -> None:
    """Anything but a URL or a redis.Redis is a ConfigurationError."""
    with pytest.raises(ConfigurationError, match="redis"):
        RedisStore(42, check_settings=False)  # type: ignore[arg-type]


def test_scripts_are_loaded_again_after_a_script_flush(
    redis_server: RedisServer, client: Any
) -> None:
    """After SCRIPT FLUSH (a restart or failover), the next call loads its script again."""
    with RedisStore(redis_server.url, prefix=new_prefix(), check_settings=False) as store:
        store.put(make_event("ev-1"))
        client.script_flush()

        assert store.put(make_event("ev-2")) == PutResult.NEW
        assert len(store.claim(owner="w", lease=30, limit=5)) == 2


# Retention by TTL.


def test_done_events_expire_by_ttl_and_requeue_keeps_them(
    redis_server: RedisServer, client: Any, prefix: str
) -> None:
    """An acked event's key expires after the retention (plus grace); a requeue removes the TTL."""
    with RedisStore(redis_server.url, prefix=prefix, check_settings=False) as store:
        store.put(make_event("ev-1"))
        pending_ttl = client.ttl(store.keys("ev-1")[-1])
        store.ack(store.claim(owner="w", lease=30)[0])
        done_ttl = client.ttl(store.keys("ev-1")[-1])
        store.requeue("ev-1")
        requeued_ttl = client.ttl(store.keys("ev-1")[-1])

    retention = DEFAULT_RETENTION.total_seconds()
    assert pending_ttl == -1
    assert retention < done_ttl <= retention + 3600
    assert requeued_ttl == -1


def test_done_index_forgets_events_the_ttl_removed(
    redis_server: RedisServer, client: Any, prefix: str
) -> None:
    """Once the TTL removed a done event, purge does not count it and a new put is NEW."""
    clock = FakeClock()
    with RedisStore(redis_server.url, prefix=prefix, clock=clock, check_settings=False) as store:
        store.put_many([make_event("gone"), make_event("kept", criado_em=None)])
        store.ack_many(store.claim(owner="w", lease=30, limit=2))
        client.delete(store.keys("gone")[-1])  # What the TTL does after the retention.
        put_again = store.put(make_event("gone"))
        clock.advance(DEFAULT_RETENTION.total_seconds() + 1)

        assert (put_again, store.purge()) == (PutResult.NEW, 1)
        stored = store.get("gone")
        assert stored is not None
        assert stored.state == EventState.PENDING


def test_ack_trims_index_entries_of_expired_events(
    redis_server: RedisServer, client: Any, prefix: str
) -> None:
    """The done index does not grow without purge: claims drop the entries the TTL emptied."""
    clock = FakeClock()
    with RedisStore(redis_server.url, prefix=prefix, clock=clock, check_settings=False) as store:
        store.put_many([make_event(f"ev-{i}") for i in range(3)])
        claims = store.claim(owner="w", lease=30, limit=3)
        store.ack_many(claims[:2])
        client.delete(*(store.keys("ev-0", "ev-1")[-2:]))  # What the TTL does.
        clock.advance(DEFAULT_RETENTION.total_seconds() + 3600 + 1)

        (later,) = store.claim(owner="w", lease=30, limit=3)  # ev-2's lease expired meanwhile.
        store.ack(later)

        done_index = store.keys()[3]
        assert client.zrange(done_index, 0, -1) == [b"ev-2"]


def test_claim_promotes_many_due_events(redis_server: RedisServer) -> None:
    """More due events than one promotion batch are all claimed, in criado_em order."""
    clock = FakeClock()
    with RedisStore(
        redis_server.url, prefix=new_prefix(), clock=clock, check_settings=False
    ) as store:
        ids = [f"ev-{i:04d}" for i in range(1200)]
        store.put_many([make_event(i, criado_em=None) for i in ids])
        for claim in store.claim(owner="w", lease=30, limit=1200):
            store.nack(claim, error="later", retry_in=10)
        clock.advance(10)

        claimed = [c.event_id for c in store.claim(owner="w", lease=30, limit=600)]
        claimed += [c.event_id for c in store.claim(owner="w", lease=30, limit=1200)]

    assert ids == claimed


# Clocks.


@SKEWS
def test_leases_hold_between_hosts_whose_clocks_disagree(
    redis_server: RedisServer, prefix: str, offset: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store whose host clock is a minute off claims and expires leases by the server's."""
    with (
        RedisStore(redis_server.url, prefix=prefix, check_settings=False) as correct,
        RedisStore(redis_server.url, prefix=prefix, check_settings=False) as skewed,
    ):
        skew(monkeypatch, skewed, offset)

        check_skewed_instance(correct, skewed)


def test_inbox_times_are_the_servers(
    redis_server: RedisServer, client: Any, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Arrival, lease, done times and the purge cutoff come from the server, not the host."""
    with RedisStore(redis_server.url, prefix=prefix, check_settings=False) as store:
        skew(monkeypatch, store, 3600.0)
        store.put(make_event("ev-1"))
        (claim,) = store.claim(owner="w", lease=30)
        store.ack(claim)
        stored = store.get("ev-1")
        seconds, micros = client.time()
        skew(monkeypatch, store, 8 * 86400.0)  # past the retention, by the host's clock only
        purged = store.purge()

    assert stored is not None
    assert stored.done_at is not None
    now = dt.datetime.fromtimestamp(seconds + micros / 1e6, tz=dt.timezone.utc)
    expiry = claim.lease_expires_at - dt.timedelta(seconds=30)
    assert stored.received_at <= expiry <= stored.done_at <= now
    assert 0 == purged


# Processes.


@pytest.fixture
def spec(redis_server: RedisServer) -> StoreSpec:
    """A RedisStore with a fresh prefix that each process opens on its own."""
    return StoreSpec(
        RedisStore, (redis_server.url,), {"prefix": new_prefix(), "check_settings": False}
    )


def test_processes_putting_the_same_ids(spec: StoreSpec) -> None:
    """Four processes putting the same 200 ids at once get each id NEW exactly once."""
    race_puts(spec, processes=4, events=200)


def test_processes_claiming_at_once(spec: StoreSpec) -> None:
    """Four processes claiming and acking at once claim every event once and miss none."""
    race_claims(spec, processes=4, events=400)


@pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals")
def test_killed_worker_loses_its_claim(spec: StoreSpec) -> None:
    """After kill -9 of a worker holding a claim, the event returns and the late ack fails."""
    race_killed_worker(spec, lease=2.0)


# Poison rows and timeouts.


def test_a_hash_from_outside_the_calendar_does_not_break_the_inbox(
    redis_server: RedisServer, client: Any, prefix: str
) -> None:
    """A criado_em stored by an older smartpos (year 0 in UTC) reads as None; get and list
    keep working for every event."""
    with RedisStore(redis_server.url, prefix=prefix, check_settings=False) as store:
        store.put_many([make_event("edge"), make_event("ok")])
        client.hset(store.keys("edge")[-1], "c", "-62135614800.0")

        edge = store.get("edge")
        listed = store.list()

    assert edge is not None
    assert edge.criado_em is None
    assert sorted(e.id for e in listed) == ["edge", "ok"]


def test_a_put_waits_for_a_busy_server_no_longer_than_its_timeout(
    redis_server: RedisServer, prefix: str
) -> None:
    """put(timeout=) gives up with StoreError while the server runs another client's long
    script (the way a stalled Redis looks), then the store works again."""
    busy = redis.Redis.from_url(redis_server.url)
    # Runs 2 to 3 seconds: well past the probe below and the put's timeout.
    spin = "local t = redis.call('TIME') repeat until tonumber(redis.call('TIME')[1]) > t[1] + 2"
    result: list[BaseException | PutResult] = []
    try:
        with RedisStore(redis_server.url, prefix=prefix, check_settings=False) as store:
            store.put(make_event("warm"), timeout=0.1)  # the timed client is connected

            blocker = threading.Thread(target=lambda: busy.eval(spin, 0), daemon=True)
            blocker.start()
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not _server_busy(redis_server):
                time.sleep(0.01)
            try:
                store.put(make_event("ev-1"), timeout=0.1)
            except StoreError as exc:
                result.append(exc)
            blocker.join(30)

            assert len(result) == 1
            assert "Timeout" in str(result[0])
            assert store.put(make_event("ev-2")) == PutResult.NEW
    finally:
        busy.close()


def _server_busy(server: RedisServer) -> bool:
    probe = redis.Redis.from_url(server.url, socket_timeout=0.5)
    try:
        probe.ping()
    except redis.exceptions.RedisError as exc:
        return "BUSY" in str(exc) or isinstance(exc, redis.exceptions.TimeoutError)
    finally:
        probe.close()
    return False


# list() in claim order whatever the number of done events: {P}:donerm.


def build_inbox(store: RedisStore, count: int) -> list[str]:
    """``count`` events with many criado_em ties (some without one), arrival order shuffled
    against their ids; most done, a few dead, claimed and pending. Returns the ids in arrival
    order."""
    base = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    ids = [f"ev-{(i * 7919) % count:05d}" for i in range(count)]
    events = [
        make_event(
            event_id,
            criado_em=None if n % 11 == 0 else base + dt.timedelta(seconds=(n * 37) % 50),
        )
        for n, event_id in enumerate(ids)
    ]
    for start in range(0, count, 500):
        store.put_many(events[start : start + 500])
    while claims := store.claim(owner="w", lease=300, limit=500):
        store.ack_many(claims[5:])
        store.dead_letter(claims[0], error="bad")
        store.release(claims[1])
        if len(claims) < 500:
            break
    return ids


def expected_order(store: RedisStore, ids: list[str], state: EventState | None) -> list[str]:
    """The contract's claim order (criado_em, missing last, then arrival), sorted in Python."""
    arrival = {event_id: n for n, event_id in enumerate(ids)}
    stored = [store.get(event_id) for event_id in ids]
    rows = [s for s in stored if s is not None and (state is None or s.state == state)]
    rows.sort(key=lambda s: (s.criado_em is None, s.criado_em or BASE, arrival[s.id]))
    return [s.id for s in rows]


BASE = dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc)


def _utc_at(seconds: float) -> dt.datetime:
    """Epoch seconds as an aware UTC datetime."""
    return dt.datetime.fromtimestamp(seconds, tz=dt.timezone.utc)


def listed(store: RedisStore, state: EventState | None, limit: int) -> list[str]:
    """The ids list() gives."""
    return [s.id for s in store.list(state=state, limit=limit)]


def command_calls(client: Any) -> dict[str, int]:
    """Calls per command since the server started (INFO commandstats; counts those of scripts)."""
    stats = client.info("commandstats")
    return {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()}


def calls_during(client: Any, action: Any) -> dict[str, int]:
    """The commands ``action`` ran on the server (nothing else runs there during a test)."""
    before = command_calls(client)
    action()
    after = command_calls(client)
    return {k: n - before.get(k, 0) for k, n in after.items() if n != before.get(k, 0)}


def test_list_keeps_claim_order_among_many_done_events(
    redis_server: RedisServer, prefix: str
) -> None:
    """With 3,000 events, most done, list() gives the Python sort of get() for every state."""
    with RedisStore(redis_server.url, prefix=prefix, check_settings=False) as store:
        ids = build_inbox(store, 3000)
        for state in (None, EventState.DONE, EventState.DEAD, EventState.PENDING):
            expected = expected_order(store, ids, state)
            for limit in (1, 10, 100, 3000):
                assert listed(store, state, limit) == expected[:limit], (state, limit)
        assert len(expected_order(store, ids, EventState.DONE)) > 2900
        assert expected_order(store, ids, EventState.DEAD)
        assert expected_order(store, ids, EventState.PENDING)


def test_list_reads_a_bounded_number_of_events(
    redis_server: RedisServer, client: Any, prefix: str
) -> None:
    """list(limit=10) looks at about 10 events, not at each of 3,000 done ones."""
    with RedisStore(redis_server.url, prefix=prefix, check_settings=False) as store:
        build_inbox(store, 3000)
        store.list(limit=1)  # this process's first list: reads the backfill's marker
        # The timer's members (claims in flight, retries waiting) are each looked at.
        in_flight = client.zcard(store.keys()[1])

        for state, most in ((None, 3 * 10 + in_flight), (EventState.DONE, 10)):
            calls = calls_during(client, lambda s=state: store.list(state=s, limit=10))
            hmget = calls.get("hmget", 0)
            assert 10 <= hmget <= most, (state, calls)
            assert calls.get("hgetall") == 10
            assert calls.get("zrange", 0) <= 6


def done_member_set(store: RedisStore, client: Any, ids: list[str]) -> set[bytes]:
    """The ``rm`` of each event in the done state now: what ``donerm`` must hold."""
    return {
        client.hget(key, "rm")
        for key in store.keys(*ids)[-len(ids) :]
        if client.hget(key, "st") == b"done"
    }


def test_a_store_written_before_donerm_is_backfilled_beside_other_calls(
    redis_server: RedisServer, client: Any, prefix: str
) -> None:
    """A store without ``donerm`` (written by an older version) is backfilled in ZSCAN batches,
    exactly although acks, requeues and purges ran between batches."""
    clock = FakeClock()
    start = clock.now
    with RedisStore(redis_server.url, prefix=prefix, clock=clock, check_settings=False) as store:
        # Early events done a second apart, so that each purge between batches deletes some.
        early = [f"early-{i}" for i in range(40)]
        for group in range(4):
            store.put_many([make_event(i) for i in early[group * 10 : group * 10 + 10]])
            store.ack_many(store.claim(owner="w", lease=300, limit=10))
            clock.advance(1)
        clock.advance(10)
        ids = early + build_inbox(store, 3000)
        pending = store.claim(owner="w", lease=300, limit=5)  # released ones, claimed again
        donerm, marker = store.keys()[-3], store.keys()[-1]
        client.delete(donerm, marker)  # the older layout: no donerm, no marker

    old = RedisStore(redis_server.url, prefix=prefix, clock=clock, check_settings=False)
    with old:
        # Without the marker, the list script reads nothing (no walk of every done event)...
        for want in ("", "done"):
            assert old._list_script(old._list_keys, [want, "10", old._ev]) == b"unfilled"
        # ... but the other states need no backfill.
        assert listed(old, EventState.DEAD, 5) == expected_order(old, ids, EventState.DEAD)[:5]

        keys = [old._done, old._donerm, old._donerm_ok]
        cursor, batches = "0", 0
        done_ids = expected_order(old, ids, EventState.DONE)
        while True:
            cursor = old._done_fill(keys, [cursor, "500", old._ev]).decode()
            batches += 1
            # Between batches: an ack, a requeue of a done event, a purge of an early one.
            if pending:
                old.ack(pending.pop())
            old.requeue(done_ids[-batches * 7])
            assert old.purge(done_before=_utc_at(start + batches)) == (10 if batches <= 4 else 0)
            if cursor == "0":
                break

        assert batches >= 4
        assert not any(old.get(i) for i in early)
        assert client.exists(marker) == 1
        assert set(client.zrange(donerm, 0, -1)) == done_member_set(old, client, ids)
        for state in (None, EventState.DONE):
            expected = expected_order(old, ids, state)
            assert listed(old, state, 100) == expected[:100]
            assert listed(old, state, 3000) == expected
        calls = calls_during(client, lambda: old.list(state=EventState.DONE, limit=10))
        assert calls.get("hmget", 0) <= 30


def test_first_list_backfills_an_older_store_in_batches(
    redis_server: RedisServer, client: Any, prefix: str
) -> None:
    """list() on a store without ``donerm`` fills it (several scripts), then reads it."""
    with RedisStore(redis_server.url, prefix=prefix, check_settings=False) as store:
        ids = build_inbox(store, 3000)
        donerm, marker = store.keys()[-3], store.keys()[-1]
        client.delete(donerm, marker)

    with RedisStore(redis_server.url, prefix=prefix, check_settings=False) as store:
        calls = calls_during(client, lambda: store.list(state=EventState.DONE, limit=10))
        first = listed(store, EventState.DONE, 3000)

        assert calls["evalsha"] >= 5  # the list, 3 batches or more, the list again
        assert calls["zscan"] >= 3
        assert client.exists(marker) == 1
        assert set(client.zrange(donerm, 0, -1)) == done_member_set(store, client, ids)
        assert first == expected_order(store, ids, EventState.DONE)


def test_donerm_forgets_events_the_ttl_removed(
    redis_server: RedisServer, client: Any, prefix: str
) -> None:
    """list() passes over ``donerm`` members whose event the TTL removed or that was stored
    again, and the claims that trim ``done`` sweep them out of ``donerm``."""
    clock = FakeClock()
    with RedisStore(redis_server.url, prefix=prefix, clock=clock, check_settings=False) as store:
        names = [f"ev-{i}" for i in range(6)]
        store.put_many([make_event(i) for i in names])
        store.ack_many(store.claim(owner="w", lease=30, limit=6))
        donerm = store.keys()[-3]
        client.delete(*store.keys("ev-0", "ev-2", "ev-4")[-3:])  # what the TTL does
        store.put(make_event("ev-2"))  # stored again: a new arrival, pending

        assert listed(store, EventState.DONE, 10) == ["ev-1", "ev-3", "ev-5"]
        assert listed(store, None, 10) == ["ev-1", "ev-3", "ev-5", "ev-2"]
        assert client.zcard(donerm) == 6

        clock.advance(DEFAULT_RETENTION.total_seconds() + 3600 + 1)
        (claim,) = store.claim(owner="w", lease=30, limit=1)

        assert claim.event_id == "ev-2"
        assert client.zcard(donerm) == 3
        assert listed(store, EventState.DONE, 10) == ["ev-1", "ev-3", "ev-5"]


def test_a_new_store_has_donerm_from_its_first_put(
    redis_server: RedisServer, client: Any, prefix: str
) -> None:
    """The first event ever stored sets the marker: list() never needs the backfill."""
    with RedisStore(redis_server.url, prefix=prefix, check_settings=False) as store:
        marker = store.keys()[-1]
        assert client.exists(marker) == 0
        store.put(make_event("ev-1"))

        assert client.exists(marker) == 1
        calls = calls_during(client, lambda: store.list(limit=10))
        assert (calls.get("evalsha"), calls.get("zscan")) == (1, None)
