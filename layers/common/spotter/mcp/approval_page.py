"""The dashboard's approval page of a pending MCP call (`/approvals/{id}`): what it shows and the
person's decision, for a client that cannot ask its user itself.

Only the call's own maker sees it (another user's or org's id is `not_found`), signed in to the
dashboard (a session token: an OAuth client's token is refused by the API). Approving records
the approval on the row; the MCP client's retry of the same call then claims and runs it once
(`calls`). Rejecting closes it `rejected_by_user` at once. Neither works on a call that is no
longer pending or whose question lapsed. Imports no MCP SDK: the API functions serve it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal
from uuid import UUID

from spotter.agent.approvals.resolution import REJECTED
from spotter.agent.executions import (
    McpPendingCall,
    approve_mcp_call,
    claim_all,
    close_expired_mcp,
    finish_decided,
    load_mcp_call,
)
from spotter.auth.caller import Caller
from spotter.db import Database
from spotter.errors import NotFoundError, SpotterError
from spotter.tools.calls import ToolOutcome
from spotter.tools.summaries import Voice, card_text, present_card, title

PageState = Literal["pending", "approved", "ran", "rejected", "expired", "failed", "running"]


def card_message(router: str, action: str, card: dict[str, Any] | None, voice: Voice) -> str:
    """What the person reads before approving: the server's card in their words (the same
    catalog the console's cards speak), never model prose and never a raw key."""
    return card_text(router, action, card, voice)


def _state(row: McpPendingCall) -> PageState:
    if row.status == "pending":
        if row.expired:
            return "expired"
        return "approved" if row.approved_at is not None else "pending"
    if row.status == "succeeded":
        return "ran"
    if row.status == "rejected_by_user":
        return "rejected"
    if row.status == "failed" and (row.error or {}).get("code") == "expired":
        return "expired"
    return "failed" if row.status == "failed" else "running"


def page_view(row: McpPendingCall, voice: Voice) -> dict[str, Any]:
    return {
        "executionId": str(row.execution_id),
        "tool": f"{row.router}_{row.action}",
        "title": title(row.router, row.action, voice.locale),
        "state": _state(row),
        "confirm": row.confirm_policy,
        "card": present_card(row.confirmation or {}, voice),
        "message": card_message(row.router, row.action, row.confirmation, voice),
        "expiresAt": row.expires_at.isoformat() if row.expires_at else None,
        "approvedAt": row.approved_at.isoformat() if row.approved_at else None,
    }


async def _own_question(db: Database, caller: Caller, execution_id: UUID) -> McpPendingCall:
    async with db.org_tx(caller.org_id) as conn:
        row = await load_mcp_call(conn, caller, execution_id)
    if row is None or row.expires_at is None:  # not an MCP question of this person's
        raise NotFoundError("No such pending call.")
    return row


async def show(db: Database, caller: Caller, execution_id: UUID) -> dict[str, Any]:
    voice = Voice.of(caller.locale, caller.org_timezone, caller.role)
    return page_view(await _own_question(db, caller, execution_id), voice)


def _not_pending() -> SpotterError:
    return SpotterError(
        "tool_already_resolved", "This call is no longer waiting for you.", status=409
    )


async def decide(
    db: Database, caller: Caller, execution_id: UUID, approve: bool, reason: str | None = None
) -> dict[str, Any]:
    """The person's decision on the page; 409 when the call no longer awaits one."""
    row = await _own_question(db, caller, execution_id)
    if row.status == "pending" and row.expired:
        async with db.org_tx(caller.org_id) as conn:
            await close_expired_mcp(conn, caller.org_id, execution_id)
        raise _not_pending()
    if approve:
        async with db.org_tx(caller.org_id) as conn:
            if not await approve_mcp_call(conn, caller, execution_id):
                raise _not_pending()
    else:
        claims = await claim_all(db, caller.org_id, [execution_id])
        if claims is None:
            raise _not_pending()
        rejected = replace(REJECTED, reason=reason) if reason else REJECTED
        await finish_decided(db, caller.org_id, claims[0], ToolOutcome.failed(rejected))
    return await show(db, caller, execution_id)
