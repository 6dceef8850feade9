"""Bookings, the waitlist and class credits.

A member books a published session that has not ended, while it has a free spot (capacity is
the session's, else its class type's; none means unlimited). A full session offers a waitlist,
first come first served; a freed spot goes to the first waitlisted member who can pay. Members
with a credit ledger pay one credit per booking (refunded when the booking is cancelled); members
without one are on an unlimited plan.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from spotter.db.scope import OrgScope
from spotter.domain import schedule
from spotter.domain.errors import DomainError, not_found
from spotter.domain.people import get_person

CHECK_IN_OPENS = timedelta(minutes=60)
_BOOKING_COLUMNS = "id, session_id, membership_id, status, waitlisted_at, booked_at"


async def credit_balance(scope: OrgScope, membership_id: UUID) -> int | None:
    """The member's credits, or None on an unlimited plan (no ledger rows)."""
    cur = await scope.conn.execute(
        "SELECT count(*) AS n, COALESCE(sum(delta), 0) AS balance FROM member_credit_ledger"
        " WHERE organization_id = %s AND membership_id = %s",
        (scope.org_id, membership_id),
    )
    row = await cur.fetchone()
    assert row is not None
    return int(row["balance"]) if row["n"] else None


async def _ledger(
    scope: OrgScope, membership_id: UUID, delta: int, reason: str, booking_id: UUID | None
) -> UUID:
    cur = await scope.conn.execute(
        "INSERT INTO member_credit_ledger (organization_id, membership_id, delta, reason,"
        " booking_id) VALUES (%s, %s, %s, %s, %s) RETURNING id",
        (scope.org_id, membership_id, delta, reason, booking_id),
    )
    row = await cur.fetchone()
    assert row is not None
    return UUID(str(row["id"]))


async def active_booking(
    scope: OrgScope, session_id: UUID, membership_id: UUID
) -> dict[str, Any] | None:
    cur = await scope.conn.execute(
        f"SELECT {_BOOKING_COLUMNS} FROM bookings WHERE organization_id = %s AND session_id = %s"
        " AND membership_id = %s AND status <> 'cancelled'",
        (scope.org_id, session_id, membership_id),
    )
    return await cur.fetchone()


async def require_booking(scope: OrgScope, session_id: UUID, membership_id: UUID) -> dict[str, Any]:
    await schedule.get_session(scope, session_id)
    await get_person(scope, membership_id)
    row = await active_booking(scope, session_id, membership_id)
    if row is None:
        raise not_found("booking")
    return row


async def check_can_join(
    scope: OrgScope,
    session: dict[str, Any],
    membership_id: UUID,
    now: datetime,
    *,
    waitlist: bool,
) -> dict[str, Any]:
    """The rules for booking (or waitlisting) a member; returns the member row."""
    member = await get_person(scope, membership_id)
    if member["status"] != "active":
        raise DomainError("conflict", f"{member['full_name']}'s membership is not active.")
    if session["status"] != "published":
        raise DomainError("conflict", f"The session is {session['status']}, not bookable.")
    if session["ends_at"] <= now or (waitlist and session["starts_at"] <= now):
        raise DomainError("conflict", "The session is over.")
    if await active_booking(scope, session["id"], membership_id):
        raise DomainError("conflict", f"{member['full_name']} is already on this session.")
    full = session["capacity"] is not None and session["booked"] >= session["capacity"]
    if full and not waitlist:
        raise DomainError(
            "capacity_full",
            f"The session is full ({session['booked']}/{session['capacity']});"
            " the member can join the waitlist.",
        )
    if waitlist and not full:
        raise DomainError("conflict", "The session has free spots; book instead.")
    balance = await credit_balance(scope, membership_id)
    if not waitlist and balance is not None and balance < 1:
        raise DomainError("insufficient_credits", f"{member['full_name']} has no class credits.")
    return member


def booking_out(row: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "id": str(row["id"]),
        "sessionId": str(row["session_id"]),
        "memberId": str(row["membership_id"]),
        "status": row["status"],
        **extra,
    }


async def _take_spot(
    scope: OrgScope, session_id: UUID, membership_id: UUID, existing: UUID | None
) -> dict[str, Any]:
    """Book a spot (a new row, or a waitlisted row promoted) and pay for it."""
    if existing is None:
        cur = await scope.conn.execute(
            "INSERT INTO bookings (organization_id, session_id, membership_id, status, booked_at)"
            f" VALUES (%s, %s, %s, 'booked', now()) RETURNING {_BOOKING_COLUMNS}",
            (scope.org_id, session_id, membership_id),
        )
    else:
        cur = await scope.conn.execute(
            "UPDATE bookings SET status = 'booked', booked_at = now(), updated_at = now()"
            f" WHERE id = %s AND organization_id = %s RETURNING {_BOOKING_COLUMNS}",
            (existing, scope.org_id),
        )
    row = await cur.fetchone()
    assert row is not None
    if await credit_balance(scope, membership_id) is not None:
        await _ledger(scope, membership_id, -1, "Class booking", row["id"])
    return row


async def book(
    scope: OrgScope, session_id: UUID, membership_id: UUID, now: datetime
) -> dict[str, Any]:
    session = await schedule.get_session(scope, session_id, lock=True)
    await check_can_join(scope, session, membership_id, now, waitlist=False)
    row = await _take_spot(scope, session_id, membership_id, None)
    return booking_out(row, credits=await credit_balance(scope, membership_id))


async def join_waitlist(
    scope: OrgScope, session_id: UUID, membership_id: UUID, now: datetime
) -> dict[str, Any]:
    session = await schedule.get_session(scope, session_id, lock=True)
    await check_can_join(scope, session, membership_id, now, waitlist=True)
    cur = await scope.conn.execute(
        "INSERT INTO bookings (organization_id, session_id, membership_id, status, waitlisted_at)"
        f" VALUES (%s, %s, %s, 'waitlisted', clock_timestamp()) RETURNING {_BOOKING_COLUMNS}",
        (scope.org_id, session_id, membership_id),
    )
    row = await cur.fetchone()
    assert row is not None
    return booking_out(row, position=session["waitlisted"] + 1)


async def fill_from_waitlist(scope: OrgScope, session_id: UUID) -> list[dict[str, str]]:
    """Give free spots to waitlisted members in order, skipping those without credits."""
    session = await schedule.get_session(scope, session_id, lock=True)
    if session["status"] != "published":
        return []
    free = None if session["capacity"] is None else session["capacity"] - session["booked"]
    cur = await scope.conn.execute(
        "SELECT b.id, b.membership_id, u.full_name FROM bookings b"
        " JOIN org_memberships m"
        " ON m.id = b.membership_id AND m.organization_id = b.organization_id"
        " JOIN users u ON u.id = m.user_id"
        " WHERE b.organization_id = %s AND b.session_id = %s AND b.status = 'waitlisted'"
        " ORDER BY b.waitlisted_at, b.id",
        (scope.org_id, session_id),
    )
    promoted: list[dict[str, str]] = []
    for row in await cur.fetchall():
        if free is not None and len(promoted) >= free:
            break
        balance = await credit_balance(scope, row["membership_id"])
        if balance is not None and balance < 1:
            continue
        await _take_spot(scope, session_id, row["membership_id"], row["id"])
        promoted.append({"memberId": str(row["membership_id"]), "name": row["full_name"]})
    return promoted


async def _release(scope: OrgScope, booking: dict[str, Any]) -> bool:
    """Cancel one booking row and refund the credit it paid, if any; True if refunded."""
    await scope.conn.execute(
        "UPDATE bookings SET status = 'cancelled', cancelled_at = now(), updated_at = now()"
        " WHERE id = %s AND organization_id = %s",
        (booking["id"], scope.org_id),
    )
    cur = await scope.conn.execute(
        "SELECT COALESCE(sum(delta), 0) AS paid FROM member_credit_ledger"
        " WHERE organization_id = %s AND booking_id = %s",
        (scope.org_id, booking["id"]),
    )
    paid = await cur.fetchone()
    if paid is not None and paid["paid"] < 0:
        await _ledger(scope, booking["membership_id"], -int(paid["paid"]), "Refund", booking["id"])
        return True
    return False


async def cancel(scope: OrgScope, session_id: UUID, membership_id: UUID) -> dict[str, Any]:
    await schedule.get_session(scope, session_id, lock=True)
    booking = await require_booking(scope, session_id, membership_id)
    if booking["status"] in ("checked_in", "no_show"):
        raise DomainError("conflict", "Attendance is already recorded for this booking.")
    refunded = await _release(scope, booking)
    promoted = []
    if booking["status"] == "booked":
        promoted = await fill_from_waitlist(scope, session_id)
    return booking_out(
        {**booking, "status": "cancelled"}, creditRefunded=refunded, promoted=promoted
    )


async def cancel_all(scope: OrgScope, session_id: UUID) -> int:
    """A session is cancelled: every booking and waitlist entry goes, credits come back."""
    cur = await scope.conn.execute(
        f"SELECT {_BOOKING_COLUMNS} FROM bookings WHERE organization_id = %s AND session_id = %s"
        " AND status <> 'cancelled'",
        (scope.org_id, session_id),
    )
    rows = await cur.fetchall()
    for row in rows:
        await _release(scope, row)
    return len(rows)


async def record_attendance(
    scope: OrgScope,
    session_id: UUID,
    membership_id: UUID,
    status: str,
    now: datetime,
) -> dict[str, Any]:
    """Check in (from an hour before the start) or mark a no-show (once the class started)."""
    session = await schedule.get_session(scope, session_id, lock=True)
    booking = await require_booking(scope, session_id, membership_id)
    if session["status"] == "cancelled":
        raise DomainError("conflict", "The session is cancelled.")
    if booking["status"] == "waitlisted":
        raise DomainError("conflict", "The member is on the waitlist, not booked.")
    if status == "checked_in" and now < session["starts_at"] - CHECK_IN_OPENS:
        raise DomainError("conflict", "Check-in opens an hour before the class.")
    if status == "no_show" and now < session["starts_at"]:
        raise DomainError("conflict", "A no-show can be marked once the class has started.")
    cur = await scope.conn.execute(
        "UPDATE bookings SET status = %s, updated_at = now(),"
        " checked_in_at = CASE WHEN %s = 'checked_in' THEN now() END"
        f" WHERE id = %s AND organization_id = %s RETURNING {_BOOKING_COLUMNS}",
        (status, status, booking["id"], scope.org_id),
    )
    row = await cur.fetchone()
    assert row is not None
    return booking_out(row)


async def roster(scope: OrgScope, session_id: UUID) -> list[dict[str, Any]]:
    """Live bookings (spots first, then the waitlist in order), with names."""
    cur = await scope.conn.execute(
        "SELECT b.id, b.membership_id, b.status, u.full_name FROM bookings b"
        " JOIN org_memberships m"
        " ON m.id = b.membership_id AND m.organization_id = b.organization_id"
        " JOIN users u ON u.id = m.user_id"
        " WHERE b.organization_id = %s AND b.session_id = %s AND b.status <> 'cancelled'"
        " ORDER BY b.status = 'waitlisted', b.waitlisted_at, u.full_name",
        (scope.org_id, session_id),
    )
    return [
        {"memberId": str(r["membership_id"]), "name": r["full_name"], "status": r["status"]}
        for r in await cur.fetchall()
    ]


async def adjust_credits(
    scope: OrgScope, membership_id: UUID, delta: int, reason: str
) -> dict[str, Any]:
    member = await get_person(scope, membership_id)
    balance = await credit_balance(scope, membership_id) or 0
    if balance + delta < 0:
        raise DomainError(
            "conflict", f"{member['full_name']} has {balance} credits; cannot remove {-delta}."
        )
    entry = await _ledger(scope, membership_id, delta, reason, None)
    return {
        "id": str(entry),
        "memberId": str(membership_id),
        "delta": delta,
        "balance": balance + delta,
    }


async def credit_history(scope: OrgScope, membership_id: UUID) -> dict[str, Any]:
    member = await get_person(scope, membership_id)
    cur = await scope.conn.execute(
        "SELECT delta, reason, created_at FROM member_credit_ledger"
        " WHERE organization_id = %s AND membership_id = %s ORDER BY created_at DESC LIMIT 10",
        (scope.org_id, membership_id),
    )
    return {
        "memberId": str(membership_id),
        "name": member["full_name"],
        "balance": await credit_balance(scope, membership_id),
        "recent": [
            {"delta": r["delta"], "reason": r["reason"], "at": r["created_at"].isoformat()}
            for r in await cur.fetchall()
        ],
    }
