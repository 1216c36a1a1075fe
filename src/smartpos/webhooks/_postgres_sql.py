"""The SQL of ``PostgresStore``: its schema's migrations, its statements and the rows they answer.

Statements are templates for ``psycopg.sql``: ``{t}`` is the inbox table, ``{ops}`` the outcome
journal's, ``{sales}`` the sales', ``{holds}`` the terminals' holders', ``{claim_idx}`` and the
like the indexes, ``{columns}`` and the like the fragments shared by several statements.
``render`` fills them in once per store with its quoted names. Migrations are only ever
appended: ``SCHEMA_VERSION`` is their count, and ``PostgresStore.migrate()`` (``_postgres.py``)
runs the ones a table lacks. The rows of ``get``, ``list``, the journal's and the sales' reads
become records here, next to the column lists they follow.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

import psycopg
from psycopg import sql

from smartpos._errors import ConfigurationError
from smartpos._messages import message

from ._journal import Linked, SaleSnapshot, journal_entry
from ._outcomes import JournalEntry
from ._sales import SaleRow
from ._store_interface import StoredEvent, _stored_event

__all__ = ["SCHEMA_VERSION", "render"]


# Each migration is a list of statement templates for ``psycopg.sql``: ``{t}`` is the table,
# ``{claim_idx}`` and the like its indexes. Never change what a released migration creates:
# append a new one. Every statement can run again over what it already made (IF NOT EXISTS,
# OR REPLACE), so that migrate() also rebuilds a schema whose tables were dropped by hand
# (their function survives them) or whose version table was lost.
_MIGRATIONS: list[list[str]] = [
    [
        """CREATE TABLE IF NOT EXISTS {t} (
            id text PRIMARY KEY,
            seq bigint GENERATED ALWAYS AS IDENTITY,
            tipo text NOT NULL,
            criado_em timestamptz,
            body json NOT NULL,
            body_hash text NOT NULL,
            state text NOT NULL DEFAULT 'pending'
                CHECK (state IN ('pending', 'claimed', 'done', 'dead')),
            attempts integer NOT NULL DEFAULT 0,
            received_at timestamptz NOT NULL,
            available_at timestamptz,
            owner text,
            token text,
            lease_expires_at timestamptz,
            last_error text,
            done_at timestamptz
        )""",
        # Serves claim: walked in claim order, over the rows that can still be claimed only.
        """CREATE INDEX IF NOT EXISTS {claim_idx} ON {t} (criado_em, seq)
            WHERE state IN ('pending', 'claimed')""",
        "CREATE INDEX IF NOT EXISTS {dead_idx} ON {t} (criado_em, seq) WHERE state = 'dead'",
        "CREATE INDEX IF NOT EXISTS {done_idx} ON {t} (done_at) WHERE state = 'done'",
    ],
    # 2: the outcome journal, and a column with each event's dados.referencia, written by
    # put() from the envelope Python already parsed: PostgreSQL's json operators unescape
    # strings and fail on a lone surrogate or a \u0000 escape, which an index expression on
    # the body would turn into a failed put (or an event no waiter finds). Events stored
    # before the migration are back-filled where PostgreSQL can read them (this blocks puts
    # meanwhile: run it at deploy).
    [
        "ALTER TABLE {t} ADD COLUMN IF NOT EXISTS referencia text",
        """UPDATE {t} SET referencia = body -> 'dados' ->> 'referencia'
            WHERE referencia IS NULL AND CASE WHEN body::text !~* '\\\\u(0000|d[89a-f])'
                THEN json_typeof(body -> 'dados' -> 'referencia') = 'string' ELSE false END""",
        """CREATE TABLE IF NOT EXISTS {ops} (
            referencia text PRIMARY KEY,
            seq bigint GENERATED ALWAYS AS IDENTITY,
            kind text NOT NULL,
            state text NOT NULL
                CHECK (state IN ('sending', 'accepted', 'rejected', 'unknown', 'final')),
            method text NOT NULL,
            path text NOT NULL,
            body bytea NOT NULL,
            answer json,
            final_event json,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL
        )""",
        """CREATE INDEX IF NOT EXISTS {ops_waiting_idx} ON {ops} (seq)
            WHERE state IN ('sending', 'accepted', 'unknown')""",
        """CREATE INDEX IF NOT EXISTS {ops_ended_idx} ON {ops} (updated_at)
            WHERE state IN ('final', 'rejected')""",
        """CREATE INDEX IF NOT EXISTS {ref_idx} ON {t} ({referencia}, seq)
            WHERE {referencia} IS NOT NULL""",
    ],
    # 3: every insert NOTIFYs its event's referencia, inside the insert's transaction, for the
    # change listeners (one LISTEN connection per process). A payload too long for NOTIFY is
    # sent empty: "something changed", every listener's waiters re-check.
    [
        """CREATE OR REPLACE FUNCTION {notify_fn}() RETURNS trigger LANGUAGE plpgsql AS $fn$
        DECLARE
            ref text := NEW.referencia;
        BEGIN
            IF ref IS NOT NULL THEN
                IF octet_length(ref) < 7000 THEN
                    PERFORM pg_notify({channel}, ref);
                ELSE
                    PERFORM pg_notify({channel}, '');
                END IF;
            END IF;
            RETURN NULL;
        END
        $fn$""",
        # PostgreSQL 13 has no CREATE OR REPLACE TRIGGER.
        "DROP TRIGGER IF EXISTS {notify_trg} ON {t}",
        """CREATE TRIGGER {notify_trg} AFTER INSERT ON {t}
            FOR EACH ROW EXECUTE FUNCTION {notify_fn}()""",
    ],
    # 4: sales (see _journal.py). A sale's row holds its total and a version each attempt
    # increments (the compare-and-set of one attempt at a time), a terminal's row the attempt
    # that last held it; the journal gains each entry's sale, its pending_after, its abandon
    # and its count of stored events (below). The new columns are NULL or 0 in existing rows
    # (no rewrite); the sale indexes are built over them, blocking journal writes meanwhile:
    # run it at deploy.
    [
        """ALTER TABLE {ops} ADD COLUMN IF NOT EXISTS sale text,
            ADD COLUMN IF NOT EXISTS pending_after float8,
            ADD COLUMN IF NOT EXISTS abandoned json,
            ADD COLUMN IF NOT EXISTS events integer NOT NULL DEFAULT 0""",
        """CREATE TABLE IF NOT EXISTS {sales} (
            sale_id text PRIMARY KEY,
            seq bigint GENERATED ALWAYS AS IDENTITY,
            total_centavos bigint NOT NULL,
            version bigint NOT NULL,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL
        )""",
        "CREATE UNIQUE INDEX IF NOT EXISTS {sales_seq_idx} ON {sales} (seq)",
        """CREATE TABLE IF NOT EXISTS {holds} (
            smartpos_id text PRIMARY KEY,
            referencia text NOT NULL,
            hold_until timestamptz NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS {ops_sale_idx} ON {ops} (sale, seq) WHERE sale IS NOT NULL",
        # The attempts that may need a human (see the "candidate" fragment): the till's review
        # (sales(attention=True)) reads this index of few rows, not every sale.
        "CREATE INDEX IF NOT EXISTS {ops_review_idx} ON {ops} (sale) WHERE {candidate}",
        # An entry of a sale counts its events: those stored before it when it is inserted
        # (here), each later one as it is stored (the inbox's trigger, below). Under READ
        # COMMITTED (PostgreSQL's default, which this store assumes throughout: each statement
        # of a function sees what committed before it began) neither side sees the other's
        # uncommitted row, so a journal insert and a put of the same referencia are ordered by
        # an advisory lock of the referencia's stripe, held until each one commits: exclusive
        # here, taken before the count's snapshot; shared in a put that found no entry to count
        # in, before it looks again. Whichever commits first, the other one sees it. (An event
        # counted twice would be harmless, a candidate too many; one not counted would hide a
        # sale from the review.)
        """CREATE OR REPLACE FUNCTION {ops_events_fn}() RETURNS trigger LANGUAGE plpgsql AS $fn$
        BEGIN
            PERFORM pg_advisory_xact_lock({events_lock}, hashtext(NEW.referencia) & {stripes});
            SELECT count(*) INTO NEW.events FROM {t} WHERE referencia = NEW.referencia;
            RETURN NEW;
        END
        $fn$""",
        "DROP TRIGGER IF EXISTS {ops_events_trg} ON {ops}",
        """CREATE TRIGGER {ops_events_trg} BEFORE INSERT ON {ops}
            FOR EACH ROW WHEN (NEW.sale IS NOT NULL) EXECUTE FUNCTION {ops_events_fn}()""",
        # A new event (never a duplicate id: ON CONFLICT DO NOTHING inserts no row) with a
        # referencia adds one to its entry's count, if that entry has a sale, in the put's
        # transaction. Usually the entry was committed before its event came: one index probe
        # and no lock. An event of no sale costs two probes and a shared lock; one without a
        # referencia, nothing (the WHEN skips the function).
        """CREATE OR REPLACE FUNCTION {count_event_fn}() RETURNS trigger LANGUAGE plpgsql AS $fn$
        BEGIN
            UPDATE {ops} SET events = events + 1
                WHERE referencia = NEW.referencia AND sale IS NOT NULL;
            IF NOT FOUND THEN
                -- An entry being inserted now may have counted before this event committed:
                -- wait for it to commit, then look again.
                PERFORM pg_advisory_xact_lock_shared(
                    {events_lock}, hashtext(NEW.referencia) & {stripes});
                UPDATE {ops} SET events = events + 1
                    WHERE referencia = NEW.referencia AND sale IS NOT NULL;
            END IF;
            RETURN NULL;
        END
        $fn$""",
        "DROP TRIGGER IF EXISTS {count_event_trg} ON {t}",
        """CREATE TRIGGER {count_event_trg} AFTER INSERT ON {t}
            FOR EACH ROW WHEN (NEW.referencia IS NOT NULL) EXECUTE FUNCTION {count_event_fn}()""",
        # One attempt of a sale journaled in one round trip (_sale_insert, see _journal.py):
        # the compare-and-sets of the journal entry, the sale's version, then the terminal's
        # holder (always in that order, so that two attempts never wait for each other in a
        # cycle). Under READ COMMITTED each statement of the function sees what committed
        # before it began, and each compare-and-set waits for a concurrent writer of its row
        # to end, then sees what it committed: of two attempts creating one sale (or one
        # terminal's first hold), or changing the same version (or holder), one changes a row
        # and the other none. A lost one raises SPCNF, which rolls back the block's
        # subtransaction (the entry and the sale written before it: nothing is left) and
        # answers 'conflict'. A referencia already journaled answers 'existing' with its entry
        # (in the "j_columns" order), or 'conflict' when it was purged meanwhile (the caller
        # then reads everything again); else 'inserted'. A serialization failure or a
        # deadlock is not caught: the statement fails and writes nothing. The parameters are
        # p_-prefixed and no output column is read as a variable (#variable_conflict).
        """CREATE OR REPLACE FUNCTION {sale_insert_fn}(
            p_referencia text, p_kind text, p_state text, p_method text, p_path text,
            p_body bytea, p_created_at timestamptz, p_updated_at timestamptz, p_sale text,
            p_pending_after float8, p_total_centavos bigint, p_version bigint,
            p_terminal text, p_holder text, p_hold_until timestamptz)
        RETURNS TABLE (outcome text, referencia text, kind text, state text, method text,
            path text, body bytea, created_at timestamptz, updated_at timestamptz, seq bigint,
            answer json, final_event json, sale text, pending_after float8, abandoned json)
        LANGUAGE plpgsql AS $fn$
        #variable_conflict use_column
        BEGIN
            BEGIN
                INSERT INTO {ops} (referencia, kind, state, method, path, body, created_at,
                    updated_at, sale, pending_after)
                VALUES (p_referencia, p_kind, p_state, p_method, p_path, p_body, p_created_at,
                    p_updated_at, p_sale, p_pending_after)
                ON CONFLICT (referencia) DO NOTHING;
                IF NOT FOUND THEN
                    RETURN QUERY SELECT 'existing', {j_columns} FROM {ops}
                        WHERE referencia = p_referencia;
                    IF NOT FOUND THEN
                        outcome := 'conflict';
                        RETURN NEXT;
                    END IF;
                    RETURN;
                END IF;
                IF p_version IS NULL THEN
                    INSERT INTO {sales} (sale_id, total_centavos, version, created_at,
                        updated_at)
                    VALUES (p_sale, p_total_centavos, 1, p_created_at, p_created_at)
                    ON CONFLICT (sale_id) DO NOTHING;
                ELSE
                    UPDATE {sales} SET version = version + 1, updated_at = p_created_at
                        WHERE sale_id = p_sale AND version = p_version;
                END IF;
                IF NOT FOUND THEN
                    RAISE SQLSTATE 'SPCNF';
                END IF;
                IF p_terminal IS NOT NULL THEN
                    IF p_holder IS NULL THEN
                        INSERT INTO {holds} (smartpos_id, referencia, hold_until)
                        VALUES (p_terminal, p_referencia, p_hold_until)
                        ON CONFLICT (smartpos_id) DO NOTHING;
                    ELSE
                        UPDATE {holds} SET referencia = p_referencia, hold_until = p_hold_until
                            WHERE smartpos_id = p_terminal AND referencia = p_holder;
                    END IF;
                    IF NOT FOUND THEN
                        RAISE SQLSTATE 'SPCNF';
                    END IF;
                END IF;
            EXCEPTION WHEN SQLSTATE 'SPCNF' THEN
                outcome := 'conflict';
                RETURN NEXT;
                RETURN;
            END;
            outcome := 'inserted';
            RETURN NEXT;
        END
        $fn$""",
    ],
    # 5: the effects of sales a transactional worker applied (see _effects.py): each key is
    # recorded in the transaction of the partner's writes and the ack, once.
    [
        """CREATE TABLE IF NOT EXISTS {effects} (
            effect_key text PRIMARY KEY,
            sale text NOT NULL,
            kind text NOT NULL,
            referencia text NOT NULL,
            event_id text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT statement_timestamp()
        )""",
    ],
    # 6: plans that cannot turn into scans (issue 27): the journal in seq order
    # (operations(final=True) and its pages), and done events in claim order (list(),
    # list(state="done")). Built over the existing rows, blocking writes to their table
    # meanwhile: run it at deploy. A done row is in two partial indexes now, an ack writes one
    # more index entry. The journal's purge reads an index of the entries it may delete only:
    # the ended entries of sales, kept for good, would otherwise be walked by every purge.
    [
        "CREATE INDEX IF NOT EXISTS {ops_seq_idx} ON {ops} (seq)",
        """CREATE INDEX IF NOT EXISTS {done_order_idx} ON {t} (criado_em, seq)
            WHERE state = 'done'""",
        """CREATE INDEX IF NOT EXISTS {ops_purge_idx} ON {ops} (updated_at)
            WHERE state IN ('final', 'rejected') AND sale IS NULL""",
        "DROP INDEX IF EXISTS {ops_ended_idx}",
    ],
    # 7: every journal write NOTIFYs its operation's referencia too, inside the write's
    # transaction (delivered at commit), on the inbox's channel, through migration 3's function
    # (the same rule: a payload too long is sent empty, every listener's waiters re-check): an
    # insert, and an update of what a reader sees (state, answer, outcome, abandon). A put's
    # count of events (``events``) is announced by the put's own notification.
    [
        "DROP TRIGGER IF EXISTS {ops_notify_trg} ON {ops}",
        """CREATE TRIGGER {ops_notify_trg}
            AFTER INSERT OR UPDATE OF state, answer, final_event, abandoned, updated_at ON {ops}
            FOR EACH ROW EXECUTE FUNCTION {notify_fn}()""",
    ],
]

#: The schema version this code needs; ``migrate()`` brings a table to it.
SCHEMA_VERSION = len(_MIGRATIONS)

# The time of a statement: the store's clock when it was given one (tests: ``%(now)s``), else
# the server's, so that the hosts sharing the table need no synchronised clocks.
# statement_timestamp() is when the server received the statement: one value for every row it
# touches, and current for each statement of a caller's transaction (now() would be the
# transaction's start, possibly long before an ack at its end).
_NOW = "coalesce(%(now)s::timestamptz, statement_timestamp())"


def _later(name: str) -> str:
    """``%(<name>)s`` from the store's clock, else ``%(<name>_s)s`` seconds after the server's."""
    return (
        f"coalesce(%({name})s::timestamptz, "
        f"statement_timestamp() + %({name}_s)s::float8 * interval '1 second')"
    )


# SQL fragments shared by several statements.
_FRAGMENTS = {
    "columns": "id, tipo, criado_em, body, body_hash, state, attempts, received_at, "
    "available_at, owner, lease_expires_at, last_error, done_at",
    "now": _NOW,
    # A lease's expiry, and a nacked event's next attempt.
    "exp": _later("exp"),
    "avail": _later("avail"),
    # The guard of every operation on a claim: its token still holds an unexpired lease.
    "held": "id = %(id)s AND state = 'claimed' AND token = %(token)s "
    f"AND lease_expires_at > {_NOW}",
    "release": "owner = NULL, token = NULL, lease_expires_at = NULL",
    "done": f"state = 'done', done_at = {_NOW}, available_at = NULL, owner = NULL, "
    "token = NULL, lease_expires_at = NULL",
    # A claimed row whose lease ran out at max_attempts goes to dead instead of to a new owner.
    "dying": "t.state = 'claimed' AND t.attempts >= %(max)s",
    # An event's dados.referencia (migration 2 says why it is a column).
    "referencia": "referencia",
    "j_columns": "referencia, kind, state, method, path, body, created_at, updated_at, seq, "
    "answer, final_event, sale, pending_after, abandoned",
    "s_columns": "sale_id, total_centavos, version, created_at, updated_at, seq",
    # The attempts that may need a human (a superset: each sale is then judged by
    # _sales.build_sale): one still waiting, one with two events or more (a contradiction, a
    # duplicate), one refused or abandoned that got an event (a late approval). Written out
    # alike in the index and in s_candidates: the planner uses a partial index only for a
    # query whose WHERE implies the index's.
    "candidate": "sale IS NOT NULL AND kind = 'payment' "
    "AND (state IN ('sending', 'accepted', 'unknown') OR events >= 2 "
    "OR (events >= 1 AND (abandoned IS NOT NULL OR state = 'rejected')))",
    # The advisory locks ordering the count of a sale's entry and its events' puts: one
    # stripe (of 64) per referencia, so that a batch of puts holds at most 64 locks.
    "stripes": "63",
}

# How many columns the "s_columns" and "j_columns" fragments select (s_snapshot's rows).
_S_WIDTH = len(_FRAGMENTS["s_columns"].split(","))
_J_WIDTH = len(_FRAGMENTS["j_columns"].split(","))

# Statement templates for ``psycopg.sql``, rendered once per store with its quoted names.
_QUERIES = {
    "version": "SELECT max(version) FROM {versions}",
    "create_schema": "CREATE SCHEMA IF NOT EXISTS {schema}",
    "create_versions": "CREATE TABLE IF NOT EXISTS {versions} (version integer PRIMARY KEY, "
    "applied_at timestamptz NOT NULL DEFAULT now())",
    "current_version": "SELECT coalesce(max(version), 0) FROM {versions}",
    "add_version": "INSERT INTO {versions} (version) VALUES (%s)",
    "put": "INSERT INTO {t} "
    "(id, tipo, criado_em, body, body_hash, received_at, available_at, referencia) "
    "VALUES (%(id)s, %(tipo)s, %(criado)s, %(body)s::json, %(hash)s, {now}, {now}, %(ref)s) "
    "ON CONFLICT (id) DO NOTHING",
    "put_many": "INSERT INTO {t} "
    "(id, tipo, criado_em, body, body_hash, received_at, available_at, referencia) "
    "SELECT u.id, u.tipo, u.criado_em, u.body::json, u.h, {now}, {now}, u.ref "
    "FROM unnest(%(ids)s::text[], %(tipos)s::text[], %(criados)s::timestamptz[], "
    "%(bodies)s::text[], %(hashes)s::text[], %(refs)s::text[]) "
    "WITH ORDINALITY AS u(id, tipo, criado_em, body, h, ref, n) "
    "ORDER BY u.n ON CONFLICT (id) DO NOTHING RETURNING id",
    "hash": "SELECT body_hash FROM {t} WHERE id = %s",
    "hashes": "SELECT id, body_hash FROM {t} WHERE id = ANY(%s::text[])",
    "claim": "WITH picked AS (SELECT id FROM {t} "
    "WHERE state IN ('pending', 'claimed') AND available_at <= {now} "
    "ORDER BY criado_em, seq LIMIT %(limit)s FOR UPDATE SKIP LOCKED) "
    "UPDATE {t} AS t SET "
    "state = CASE WHEN {dying} THEN 'dead' ELSE 'claimed' END, "
    "attempts = CASE WHEN {dying} THEN t.attempts ELSE t.attempts + 1 END, "
    "owner = CASE WHEN {dying} THEN NULL ELSE %(owner)s END, "
    "token = CASE WHEN {dying} THEN NULL ELSE gen_random_uuid()::text END, "
    "lease_expires_at = CASE WHEN {dying} THEN NULL ELSE {exp} END, "
    "available_at = CASE WHEN {dying} THEN NULL ELSE {exp} END, "
    "last_error = CASE WHEN {dying} THEN %(head)s || t.attempts || %(tail)s "
    "ELSE t.last_error END "
    "FROM picked WHERE t.id = picked.id "
    "RETURNING t.id, t.tipo, t.body, t.attempts, t.token, t.state, t.criado_em, t.seq, "
    "t.lease_expires_at",
    "ack": "UPDATE {t} SET {done} WHERE {held}",
    # Inside a handler's transaction: the token alone (nobody claimed the event since), even
    # past the lease's expiry; the row stays locked until that transaction ends.
    "ack_in_transaction": "UPDATE {t} SET {done} "
    "WHERE id = %(id)s AND state = 'claimed' AND token = %(token)s",
    "effect_insert": "INSERT INTO {effects} (effect_key, sale, kind, referencia, event_id) "
    "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (effect_key) DO NOTHING",
    "ack_many": "UPDATE {t} AS t SET {done} "
    "FROM unnest(%(ids)s::text[], %(tokens)s::text[]) AS a(id, token) "
    "WHERE t.id = a.id AND t.state = 'claimed' AND t.token = a.token "
    "AND t.lease_expires_at > {now} RETURNING t.id",
    "nack": "UPDATE {t} SET "
    "state = CASE WHEN attempts >= %(max)s THEN 'dead' ELSE 'pending' END, "
    "available_at = CASE WHEN attempts >= %(max)s THEN NULL ELSE {avail} END, "
    "last_error = %(error)s, {release} WHERE {held}",
    "release": "UPDATE {t} SET state = 'pending', attempts = attempts - 1, "
    "available_at = {now}, {release} WHERE {held}",
    "dead_letter": "UPDATE {t} SET state = 'dead', available_at = NULL, "
    "last_error = %(error)s, {release} WHERE {held}",
    "extend": "UPDATE {t} SET lease_expires_at = {exp}, available_at = {exp} WHERE {held}",
    "get": "SELECT {columns} FROM {t} WHERE id = %s",
    # One statement per state, the state written out so that the partial indexes apply, each
    # walked in claim order (claim_idx, done_order_idx, dead_idx). Every state: the first rows
    # of each index, merged.
    "list": "SELECT {columns} FROM ("
    "(SELECT {columns}, seq FROM {t} WHERE state IN ('pending', 'claimed') "
    "ORDER BY criado_em, seq LIMIT %(limit)s) UNION ALL "
    "(SELECT {columns}, seq FROM {t} WHERE state = 'done' "
    "ORDER BY criado_em, seq LIMIT %(limit)s) UNION ALL "
    "(SELECT {columns}, seq FROM {t} WHERE state = 'dead' "
    "ORDER BY criado_em, seq LIMIT %(limit)s)) AS u ORDER BY criado_em, seq LIMIT %(limit)s",
    "list_pending": "SELECT {columns} FROM {t} WHERE state = 'pending' "
    "ORDER BY criado_em, seq LIMIT %(limit)s",
    "list_claimed": "SELECT {columns} FROM {t} WHERE state = 'claimed' "
    "ORDER BY criado_em, seq LIMIT %(limit)s",
    "list_done": "SELECT {columns} FROM {t} WHERE state = 'done' "
    "ORDER BY criado_em, seq LIMIT %(limit)s",
    "list_dead": "SELECT {columns} FROM {t} WHERE state = 'dead' "
    "ORDER BY criado_em, seq LIMIT %(limit)s",
    "requeue": "UPDATE {t} SET state = 'pending', attempts = 0, done_at = NULL, "
    "available_at = {now}, {release} WHERE id = %(id)s AND state IN ('dead', 'done')",
    # The cutoff: done_before, the store's clock minus the retention, or the server's. The
    # batch is picked in done_at order (done_idx), then deleted by key: written as IN
    # (subquery), a generic plan (the cutoff unknown) hashes the batch and scans the table.
    "purge": "DELETE FROM {t} WHERE id = ANY(ARRAY(SELECT id FROM {t} WHERE state = 'done' "
    "AND done_at < coalesce(%(cutoff)s::timestamptz, "
    "statement_timestamp() - %(retention)s::float8 * interval '1 second') "
    "ORDER BY done_at LIMIT %(limit)s))",
    # Whether a purge has any event to delete, and the cutoff it then deletes before (the
    # server's clock read once): when none is due, the journal's waiting entries are not
    # settled first (see JournalBase._settle_waiting).
    # The oldest done event (done_idx's first entry): an EXISTS would get a generic plan that
    # scans the table, hoping to stop early.
    "purge_due": "SELECT cut.c, coalesce((SELECT done_at FROM {t} WHERE state = 'done' "
    "ORDER BY done_at LIMIT 1) < cut.c, false) FROM (SELECT coalesce(%(cutoff)s::timestamptz, "
    "statement_timestamp() - %(retention)s::float8 * interval '1 second') AS c) AS cut",
    "settings": "SELECT current_setting('fsync'), current_setting('synchronous_commit'), "
    "current_setting('full_page_writes')",
    # The outcome journal (see _journal.py).
    "j_get": "SELECT {j_columns} FROM {ops} WHERE referencia = %s",
    "j_insert": "INSERT INTO {ops} "
    "(referencia, kind, state, method, path, body, created_at, updated_at, sale, pending_after) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (referencia) DO NOTHING",
    "j_update": "UPDATE {ops} SET state = %(state)s, updated_at = %(now)s, "
    "answer = coalesce(%(answer)s::json, answer) "
    "WHERE referencia = %(referencia)s AND state = ANY(%(allowed)s::text[])",
    "j_finalize": "UPDATE {ops} SET state = 'final', final_event = %s::json, updated_at = %s "
    "WHERE referencia = %s AND state <> 'final'",
    "j_list_waiting": "SELECT {j_columns} FROM {ops} "
    "WHERE state IN ('sending', 'accepted', 'unknown') AND seq > %s ORDER BY seq LIMIT %s",
    "j_list": "SELECT {j_columns} FROM {ops} WHERE seq > %s ORDER BY seq LIMIT %s",
    "j_events": "SELECT body FROM {t} WHERE {referencia} = %s ORDER BY seq",
    # The batched reads of the journal (see _journal.py), one statement each whatever the
    # number of keys. The ORDER BY inside each LATERAL subquery keeps it a subquery run per
    # key (an index probe): flattened into a join, a generic plan may hash a whole table.
    "j_events_many": "SELECT r.ref, b.body FROM unnest(%s::text[]) WITH ORDINALITY AS r(ref, n) "
    "CROSS JOIN LATERAL (SELECT body, seq FROM {t} WHERE {referencia} = r.ref ORDER BY seq) "
    "AS b ORDER BY r.n, b.seq",
    "j_finalize_many": "UPDATE {ops} AS o SET state = 'final', final_event = u.ev::json, "
    "updated_at = %(now)s FROM unnest(%(refs)s::text[], %(events)s::text[]) AS u(r, ev) "
    "WHERE o.referencia = u.r AND o.state <> 'final' RETURNING o.referencia",
    "received_many": "SELECT id, received_at FROM {t} WHERE id = ANY(%s::text[])",
    # A sale is computed from its entries: they are never purged.
    "j_purge": "DELETE FROM {ops} WHERE referencia = ANY(ARRAY(SELECT referencia FROM {ops} "
    "WHERE state IN ('final', 'rejected') AND updated_at < %s AND sale IS NULL "
    "ORDER BY updated_at LIMIT %s))",
    # Sales (see _journal.py).
    "s_get": "SELECT {s_columns} FROM {sales} WHERE sale_id = %s",
    "s_list": "SELECT {s_columns} FROM {sales} WHERE seq > %s ORDER BY seq LIMIT %s",
    # From the candidates to their sales, never the other way: as a plain semi-join, a planner
    # without statistics (a table just filled) may walk every sale in seq order and probe the
    # candidates for each. The LIMIT 1 (sale_id is unique) keeps the lateral subquery from
    # being flattened into such a join.
    "s_candidates": "SELECT s.* FROM (SELECT DISTINCT sale FROM {ops} WHERE {candidate}) AS c "
    "CROSS JOIN LATERAL (SELECT {s_columns} FROM {sales} "
    "WHERE sale_id = c.sale AND seq > %s LIMIT 1) AS s ORDER BY s.seq LIMIT %s",
    "s_entries": "SELECT {j_columns} FROM {ops} WHERE sale = %s ORDER BY seq",
    # The entries of several sales with their events (as s_snapshot aggregates them), by
    # sale in the order given, then seq.
    "s_linked": "SELECT e.*, (SELECT json_agg(b.body ORDER BY b.seq) FROM {t} AS b "
    "WHERE b.{referencia} = e.referencia) "
    "FROM unnest(%s::text[]) WITH ORDINALITY AS s(id, n) "
    "CROSS JOIN LATERAL (SELECT {j_columns} FROM {ops} WHERE sale = s.id ORDER BY seq) AS e "
    "ORDER BY s.n, e.seq",
    "s_abandon": "UPDATE {ops} SET abandoned = %s::json, updated_at = %s "
    "WHERE referencia = %s AND abandoned IS NULL",
    # What the checks of one attempt read (_sale_snapshot), in one statement (one snapshot):
    # a row per part, by part then seq. Part 0: the entry already journaled under the
    # attempt's referencia (then nothing else is read); 1: the sale's row; 2: the sale's
    # entries; 3: the terminal's holder, until when, and its entry. Each row: part, the
    # holder's referencia and hold_until, the sale's {s_columns}, an entry's {j_columns} (NULL
    # when none: the holder's entry purged) and that entry's events as a json array (NULL:
    # none), aggregated verbatim in the order of j_events. The LIMIT 1 (referencia is the key)
    # keeps the lateral subquery a probe of the key per row: flattened into a join, a planner
    # without statistics (a table just created) may hash the whole journal instead.
    "s_snapshot": "WITH existing AS "
    "(SELECT referencia FROM {ops} WHERE referencia = %(referencia)s), "
    "sale AS (SELECT {s_columns} FROM {sales} "
    "WHERE sale_id = %(sale)s AND NOT EXISTS (SELECT FROM existing)), "
    "picked AS (SELECT 0 AS part, referencia, NULL::timestamptz AS hold_until, 0::bigint AS n "
    "FROM existing "
    "UNION ALL SELECT 1, NULL, NULL, 0 FROM sale "
    "UNION ALL SELECT 2, referencia, NULL, seq FROM {ops} "
    "WHERE sale = %(sale)s AND EXISTS (SELECT FROM sale) "
    "UNION ALL SELECT 3, referencia, hold_until, 0 FROM {holds} "
    "WHERE smartpos_id = %(terminal)s AND NOT EXISTS (SELECT FROM existing)) "
    "SELECT p.part, p.referencia, p.hold_until, s.*, e.*, "
    "(SELECT json_agg(b.body ORDER BY b.seq) FROM {t} AS b WHERE b.{referencia} = e.referencia) "
    "FROM picked AS p LEFT JOIN sale AS s ON p.part = 1 "
    "LEFT JOIN LATERAL (SELECT {j_columns} FROM {ops} WHERE referencia = p.referencia LIMIT 1) "
    "AS e ON true ORDER BY p.part, p.n",
    # One attempt's compare-and-sets (_sale_insert): see the function in migration 4.
    "s_insert": "SELECT * FROM {sale_insert_fn}(%(referencia)s::text, %(kind)s::text, "
    "%(state)s::text, %(method)s::text, %(path)s::text, %(body)s::bytea, "
    "%(created_at)s::timestamptz, %(updated_at)s::timestamptz, %(sale)s::text, "
    "%(pending_after)s::float8, %(total)s::bigint, %(version)s::bigint, %(terminal)s::text, "
    "%(holder)s::text, %(until)s::timestamptz)",
    "t_get": "SELECT referencia, hold_until FROM {holds} WHERE smartpos_id = %s",
}


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,47}")


def _check_name(name: str, what: str) -> None:
    # Plain identifiers only, short enough that "<table>_schema" and the index names fit in
    # PostgreSQL's 63 bytes; psycopg.sql quotes them anyway.
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ConfigurationError(message("webhooks.sql_identifier", what=what, name=name))


def _lock_key(text: str) -> int:
    """A 32-bit advisory lock key of ``text`` (the first of the two-key form)."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big", signed=True)


def render(
    conn: psycopg.Connection[Any], *, table: str, schema: str | None, channel: str
) -> dict[str, str]:
    """Render every statement and migration step once with one store's quoted names.

    Args:
        conn: A connection (quoting depends on its encoding).
        table: The inbox table's bare name; the journal's table, the version table and the
            indexes are named after it.
        schema: The schema of the tables, or ``None`` for the connection's ``search_path``.
        channel: The NOTIFY channel of the insert trigger.

    Returns:
        The SQL text of each ``_QUERIES`` key, and of each migration step as
        ``"migration<version>.<i>"`` (from 1 and 0).
    """

    def name(bare: str) -> sql.Identifier:
        if schema is None:
            return sql.Identifier(bare)
        return sql.Identifier(schema, bare)

    names: dict[str, sql.Composable] = {
        "t": name(table),
        "versions": name(f"{table}_schema"),
        "schema": sql.Identifier(schema or "public"),
        "claim_idx": sql.Identifier(f"{table}_claim_idx"),
        "dead_idx": sql.Identifier(f"{table}_dead_idx"),
        "done_idx": sql.Identifier(f"{table}_done_idx"),
        "ops": name(f"{table}_operations"),
        "ops_waiting_idx": sql.Identifier(f"{table}_ops_waiting_idx"),
        "ops_ended_idx": sql.Identifier(f"{table}_ops_ended_idx"),
        "ops_seq_idx": sql.Identifier(f"{table}_ops_seq_idx"),
        "ops_purge_idx": sql.Identifier(f"{table}_ops_purge_idx"),
        "done_order_idx": sql.Identifier(f"{table}_done_order_idx"),
        "ref_idx": sql.Identifier(f"{table}_ref_idx"),
        "ops_sale_idx": sql.Identifier(f"{table}_ops_sale_idx"),
        "ops_review_idx": sql.Identifier(f"{table}_ops_review_idx"),
        "ops_events_fn": name(f"{table}_ops_events"),
        "ops_events_trg": sql.Identifier(f"{table}_ops_events"),
        "count_event_fn": name(f"{table}_count_event"),
        "count_event_trg": sql.Identifier(f"{table}_count_event"),
        "sale_insert_fn": name(f"{table}_sale_insert"),
        "events_lock": sql.Literal(_lock_key(f"smartpos-events:{schema or ''}.{table}")),
        "sales": name(f"{table}_sales"),
        "sales_seq_idx": sql.Identifier(f"{table}_sales_seq_idx"),
        "holds": name(f"{table}_terminal_holds"),
        "effects": name(f"{table}_effects"),
        "notify_fn": name(f"{table}_notify"),
        "notify_trg": sql.Identifier(f"{table}_notify"),
        "ops_notify_trg": sql.Identifier(f"{table}_ops_notify"),
        "channel": sql.Literal(channel),
        **{k: sql.SQL(v) for k, v in _FRAGMENTS.items()},
    }
    rendered = {k: sql.SQL(v).format(**names).as_string(conn) for k, v in _QUERIES.items()}
    for version, statements in enumerate(_MIGRATIONS, start=1):
        for i, statement in enumerate(statements):
            template = sql.SQL(statement)
            rendered[f"migration{version}.{i}"] = template.format(**names).as_string(conn)
    return rendered


def _to_utc(value: _dt.datetime) -> _dt.datetime:
    return value.astimezone(_dt.timezone.utc)


def _parsed(body: Mapping[str, Any]) -> Mapping[str, Any]:
    # psycopg has already parsed the json column.
    return body


def _journal_entry(row: Sequence[Any]) -> JournalEntry:
    # psycopg has already parsed the json column.
    return journal_entry(row, timestamp=_dt.datetime.timestamp, final_event=dict)


def _sale_snapshot(rows: Sequence[Sequence[Any]]) -> SaleSnapshot:
    """The rows of ``s_snapshot``, as the default ``_sale_snapshot`` would read them."""
    existing: Linked | None = None
    sale: SaleRow | None = None
    entries: list[Linked] = []
    holder: tuple[str, float, Linked | None] | None = None
    for part, held, until, *rest in rows:
        entry = rest[_S_WIDTH : _S_WIDTH + _J_WIDTH]
        events = rest[_S_WIDTH + _J_WIDTH]
        linked = None if entry[0] is None else (_journal_entry(entry), events or [])
        if part == 1:
            sale = _sale_row(rest[:_S_WIDTH])
        elif part == 3:
            holder = (held, until.timestamp(), linked)
        else:
            assert linked is not None  # read by its key in the same statement
            if part == 0:
                existing = linked
            else:
                entries.append(linked)
    if existing is not None:  # then nothing else was read
        return SaleSnapshot(existing=existing)
    return SaleSnapshot(row=sale, entries=entries, holder=holder)


def _sale_linked(rows: Sequence[Sequence[Any]]) -> dict[str, list[Linked]]:
    """The rows of ``s_linked``, by sale."""
    found: dict[str, list[Linked]] = {}
    for row in rows:
        entry = _journal_entry(row[:_J_WIDTH])
        assert entry.sale is not None  # read by its sale
        found.setdefault(entry.sale, []).append((entry, row[_J_WIDTH] or []))
    return found


def _sale_row(row: Sequence[Any]) -> SaleRow:
    sale_id, total_centavos, version, created_at, updated_at, seq = row
    return SaleRow(
        sale_id=sale_id,
        total_centavos=total_centavos,
        version=version,
        created_at=created_at.timestamp(),
        updated_at=updated_at.timestamp(),
        seq=seq,
    )


def _stored(row: tuple[Any, ...]) -> StoredEvent:
    return _stored_event(row, to_datetime=_to_utc, to_raw=_parsed)
