"""RedisStore: waking waiters through pub/sub, across processes, and after a reconnect."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from listener_contract import SharedListenerContract, started_listener, until, wait_in_thread
from outcome_events import REFERENCIA, event
from races import StoreSpec
from servers import RedisServer, require_module
from store_contract import StoreFactory, closing_factory

redis = require_module("redis", "the redis client (pip install 'smartpos[redis]')")
from smartpos.webhooks._redis import RedisStore  # noqa: E402

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def new_prefix() -> str:
    """A prefix no other test uses, so that stores on the shared server start empty."""
    return f"w{uuid.uuid4().hex[:12]}"


class TestRedisListener(SharedListenerContract):
    """The waking contract on RedisStore, one key prefix per store."""

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
    def spec(self, redis_server: RedisServer) -> StoreSpec:
        """A fresh prefix on the session's server that each process opens on its own."""
        return StoreSpec(
            RedisStore, (redis_server.url,), {"prefix": new_prefix(), "check_settings": False}
        )


def test_a_publication_lost_while_disconnected_still_wakes_the_waiter(
    redis_server: RedisServer,
) -> None:
    """An event whose publication never arrived is found when the subscription reconnects."""
    prefix = new_prefix()
    admin = redis.Redis.from_url(redis_server.url)
    with (
        RedisStore(redis_server.url, prefix=prefix, check_settings=False) as store,
        RedisStore(redis_server.url, prefix=prefix, check_settings=False) as silent,
    ):
        silent._changes = "nobody-listens-here"  # its puts publish where no listener is
        listener = started_listener(store)
        before = listener.checks
        wait = wait_in_thread(listener, REFERENCIA)
        until(lambda: listener.checks == before + 1, "the waiter's first check")

        silent.put(event("ev-1", "pagamento.recusado"))
        killed = admin.client_kill_filter(_type="pubsub")

        outcome = wait.join()
    admin.close()

    assert killed >= 1
    assert outcome is not None
    assert "ev-1" == outcome.id
