"""The outbox: queued with the caller's transaction, delivered once, interrupted never re-sent."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from uuid import UUID, uuid4

import psycopg
import pytest

from spotter.db import Database
from spotter.db.scope import OrgScope
from spotter.domain import outbox
from spotter.domain.errors import DomainError
from spotter.domain.outbox import Recipient
from spotter.providers.email import RecordingSender, SendRejected
from tests.support.world import Org

ANN = Recipient("ann@example.com", "Ann Bar", "member", uuid4())


async def _queue(db: Database, org: Org, *recipients: Recipient, body: str = "Hi!") -> list[UUID]:
    async with db.org_tx(org.id) as conn:
        queued = await outbox.enqueue(
            OrgScope(conn, org.id),
            recipients=list(recipients) or [ANN],
            subject="Hello",
            body=body,
            source="test",
        )
    return [UUID(q["id"]) for q in queued]


async def _status(db: Database, org: Org, ids: list[UUID]) -> list[str]:
    async with db.org_tx(org.id) as conn:
        return [s["status"] for s in await outbox.statuses(OrgScope(conn, org.id), ids)]


async def test_enqueue_returns_one_queued_row_per_distinct_address(db: Database, org: Org) -> None:
    again = Recipient("ANN@example.com", "Ann again")
    ben = Recipient("ben@example.com")
    async with db.org_tx(org.id) as conn:
        queued = await outbox.enqueue(
            OrgScope(conn, org.id), recipients=[ANN, again, ben], subject="S", body="B", source="t"
        )
    assert [(q["to"], q["status"]) for q in queued] == [
        ("ann@example.com", "queued"),
        ("ben@example.com", "queued"),
    ]
    assert queued[0]["name"] == "Ann Bar"


async def test_enqueue_rolls_back_with_the_callers_transaction(db: Database, org: Org) -> None:
    class Boom(Exception):
        pass

    async def queue_then_fail() -> None:
        async with db.org_tx(org.id) as conn:
            await outbox.enqueue(
                OrgScope(conn, org.id), recipients=[ANN], subject="S", body="B", source="t"
            )
            raise Boom

    with pytest.raises(Boom):
        await queue_then_fail()
    sender = RecordingSender()
    assert await outbox.deliver_queued(db, org.id, sender) == []
    assert sender.sent == []


@pytest.mark.parametrize(
    ("recipients", "subject", "body", "code"),
    [
        ([], "S", "B", "conflict"),
        ([Recipient("not-an-address")], "S", "B", "invalid_args"),
        ([ANN], "  ", "B", "invalid_args"),
        ([ANN], "S", "x" * 20_001, "invalid_args"),
    ],
)
async def test_enqueue_refuses_bad_input_and_writes_nothing(
    db: Database, org: Org, recipients: list[Recipient], subject: str, body: str, code: str
) -> None:
    async with db.org_tx(org.id) as conn:
        with pytest.raises(DomainError) as info:
            await outbox.enqueue(
                OrgScope(conn, org.id),
                recipients=recipients,
                subject=subject,
                body=body,
                source="t",
            )
        cur = await conn.execute("SELECT count(*) AS n FROM outbox_messages")
        row = await cur.fetchone()
    assert info.value.code == code
    assert row is not None and row["n"] == 0


async def test_delivery_sends_once_and_records_the_provider_id(db: Database, org: Org) -> None:
    ids = await _queue(db, org, body="See you at 7.")
    sender = RecordingSender()
    done = await outbox.deliver(db, org.id, sender, ids)
    again = await outbox.deliver(db, org.id, sender, ids)
    assert [d.status for d in done] == ["delivered"]
    assert [d.status for d in again] == ["skipped"]
    assert [(e.to_address, e.to_name, e.body) for e in sender.sent] == [
        ("ann@example.com", "Ann Bar", "See you at 7.")
    ]
    async with db.org_tx(org.id) as conn:
        cur = await conn.execute("SELECT provider_message_id, delivered_at FROM outbox_messages")
        row = await cur.fetchone()
    assert row is not None and row["provider_message_id"].startswith("local-")
    assert row["delivered_at"] is not None


async def test_a_rejected_send_is_failed_with_the_providers_code(db: Database, org: Org) -> None:
    ids = await _queue(db, org)
    sender = RecordingSender(
        reject=SendRejected("MessageRejected", "Email address is not verified.")
    )
    assert [d.status for d in await outbox.deliver(db, org.id, sender, ids)] == ["failed"]
    async with db.org_tx(org.id) as conn:
        shown = await outbox.statuses(OrgScope(conn, org.id), ids)
    assert shown[0]["error"]["code"] == "MessageRejected"


async def test_a_send_that_errors_mid_call_is_outcome_unknown_and_never_resent(
    db: Database, org: Org
) -> None:
    ids = await _queue(db, org)
    flaky = RecordingSender(interrupt=TimeoutError("read timed out"))
    assert [d.status for d in await outbox.deliver(db, org.id, flaky, ids)] == ["outcome_unknown"]
    healthy = RecordingSender()
    assert [d.status for d in await outbox.deliver(db, org.id, healthy, ids)] == ["skipped"]
    assert await outbox.sweep_outbox(db, healthy) == 0
    assert healthy.sent == []
    assert await _status(db, org, ids) == ["outcome_unknown"]


async def test_a_delivery_killed_after_its_claim_expires_unknown_and_is_never_resent(
    db: Database, org: Org, clean_db: str
) -> None:
    ids = await _queue(db, org)

    class Hangs:
        async def send(self, email: object) -> str:
            await asyncio.sleep(3600)
            raise AssertionError("unreachable")

    # the process dies mid-call: the task is cancelled after the claim committed
    task = asyncio.create_task(outbox.deliver(db, org.id, Hangs(), ids))
    for _ in range(100):
        if await _status(db, org, ids) == ["sending"]:
            break
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _status(db, org, ids) == ["sending"]
    with psycopg.connect(clean_db) as conn:  # the claim window has passed
        conn.execute("UPDATE outbox_messages SET claimed_at = claimed_at - interval '10 minutes'")
    healthy = RecordingSender()
    await outbox.sweep_outbox(db, healthy)
    await outbox.sweep_outbox(db, healthy)
    assert healthy.sent == []
    assert await _status(db, org, ids) == ["outcome_unknown"]


async def test_expiry_leaves_a_send_within_its_claim_window_alone(db: Database, org: Org) -> None:
    ids = await _queue(db, org)
    async with db.org_tx(org.id) as conn:
        await conn.execute("UPDATE outbox_messages SET status = 'sending', claimed_at = now()")
        assert await outbox.expire_interrupted(OrgScope(conn, org.id)) == 0
        assert await outbox.expire_interrupted(OrgScope(conn, org.id), window=timedelta(0)) == 1
    assert await _status(db, org, ids) == ["outcome_unknown"]


async def test_the_providers_late_answer_replaces_the_unknown_guess(db: Database, org: Org) -> None:
    ids = await _queue(db, org)

    class SlowButAccepts:
        async def send(self, email: object) -> str:
            async with db.org_tx(org.id) as conn:  # the sweep gives up on it meanwhile
                await outbox.expire_interrupted(OrgScope(conn, org.id), window=timedelta(0))
            return "ses-123"

    assert [d.status for d in await outbox.deliver(db, org.id, SlowButAccepts(), ids)] == [
        "delivered"
    ]
    assert await _status(db, org, ids) == ["delivered"]


async def test_concurrent_deliveries_send_each_message_once(db: Database, org: Org) -> None:
    ids = await _queue(db, org, ANN, Recipient("ben@example.com"), Recipient("cat@example.com"))
    sender = RecordingSender()
    runs = await asyncio.gather(*(outbox.deliver(db, org.id, sender, ids) for _ in range(4)))
    assert sorted(e.to_address for e in sender.sent) == [
        "ann@example.com",
        "ben@example.com",
        "cat@example.com",
    ]
    assert sum(d.status == "delivered" for run in runs for d in run) == 3


async def test_another_orgs_messages_are_neither_seen_nor_sent(
    db: Database, org: Org, other_org: Org
) -> None:
    ids = await _queue(db, org)
    sender = RecordingSender()
    assert [d.status for d in await outbox.deliver(db, other_org.id, sender, ids)] == ["skipped"]
    assert await _status(db, other_org, ids) == []
    assert sender.sent == []
