"""Leases between two store instances whose hosts' clocks disagree by a minute.

``RedisStore`` and ``PostgresStore`` take every lease time from the server's clock, so an
instance whose host clock runs 60 s behind (or ahead) claims, acks and expires leases exactly
like one whose clock is right. Each backend's test module builds two instances of one store
(``correct`` and ``skewed``, the latter's clock moved with ``skew``) and runs these scenarios.
"""

from __future__ import annotations

import time

import pytest
from store_contract import make_event

from smartpos.webhooks._store import Store, StoreBase

__all__ = ["SKEWS", "check_skewed_instance", "skew"]

#: A host clock a minute behind, and one a minute ahead.
SKEWS = pytest.mark.parametrize("offset", [-60.0, 60.0], ids=["behind", "ahead"])

# Long enough for a claim and the next call, short enough to wait out.
_SHORT_LEASE = 0.3


def skew(monkeypatch: pytest.MonkeyPatch, store: StoreBase, offset: float) -> None:
    """Make ``store``'s host clock (the seam every ``_now()`` reads) run ``offset`` seconds off."""
    monkeypatch.setattr(store, "_clock", lambda: time.time() + offset)


def check_skewed_instance(correct: Store, skewed: Store) -> None:
    """Run every lease scenario between the two instances; each assert names what went wrong."""
    # An expired lease is taken over by the skewed instance (behind: it thought it still ran).
    correct.put(make_event("ev-1"))
    (first,) = correct.claim(owner="correct", lease=_SHORT_LEASE)
    time.sleep(_SHORT_LEASE + 0.2)
    taken = skewed.claim(owner="skewed", lease=30)
    assert ["ev-1"] == [c.event_id for c in taken], "an expired lease was not taken over"
    assert not correct.ack(first), "a lease taken over still acked"
    assert skewed.ack(taken[0]), "the new owner's ack was refused"

    # A live lease is not taken by the skewed instance (ahead: it thought it had run out).
    correct.put(make_event("ev-2"))
    (held,) = correct.claim(owner="correct", lease=30)
    assert [] == skewed.claim(owner="skewed", lease=30), "a live lease was taken over"
    assert correct.ack(held), "the owner's ack was refused"

    # The skewed instance's own leases last what they say, by the server's clock.
    skewed.put(make_event("ev-3"))
    (own,) = skewed.claim(owner="skewed", lease=30)
    expires_in = own.lease_expires_at.timestamp() - time.time()
    assert 25 < expires_in <= 31, f"a 30 s lease expires in {expires_in:.1f} s"
    assert [] == correct.claim(owner="correct", lease=30), "a live lease was taken over"
    assert skewed.extend(own, lease=_SHORT_LEASE), "the owner's extend was refused"
    time.sleep(_SHORT_LEASE + 0.2)
    assert ["ev-3"] == [c.event_id for c in correct.claim(owner="correct", lease=30)], (
        "a lease extended by the skewed instance did not expire"
    )

    # A retry "at once" from the skewed instance is due at once for the others too.
    skewed.put(make_event("ev-4"))
    (failing,) = skewed.claim(owner="skewed", lease=30)
    assert skewed.nack(failing, error="boom", retry_in=0.0), "the owner's nack was refused"
    assert ["ev-4"] == [c.event_id for c in correct.claim(owner="correct", lease=30)], (
        "a nacked event was not due at once"
    )
