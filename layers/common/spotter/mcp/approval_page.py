"""The dashboard's approval page of a pending MCP call (`/approvals/{id}`): what it shows and the
person's decision, for a client that cannot ask its user itself.

Only the call's own maker sees it (another user's or org's id is `not_found`), signed in to the
dashboard (a session token: an OAuth client's token is refused by the API). Approving records
the approval on the row; the MCP client's retry of the same call then claims and runs it once
(`calls`). Rejecting closes it `rejected_by_user` at once. Neither works on a call that is no
longer pending or whose question lapsed. Imports no MCP SDK: the API functions serve it.
"""

from __future__ import annotations

import json
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

PageState = Literal["pending", "approved", "ran", "rejected", "expired", "failed", "running"]


def card_message(tool: str, card: dict[str, Any]) -> str:
    """What the person reads before approving: the server's card, never model prose."""
    lines = [f"Approve {tool}?"]
    if card.get("target"):
        lines.append(f"Target: {card['target']}")
    if card.get("affectedCount") is not None:
        lines.append(f"Affects: {card['affectedCount']}")
    if card.get("consequences"):
        lines.append("Consequences: " + ", ".join(card["consequences"]))
    for change in card.get("changes") or []:
        lines.append(f"Change: {json.dumps(change, ensure_ascii=False, default=str)}")
    if card.get("outbound"):
        lines.append(f"Sends: {json.dumps(card['outbound'], ensure_ascii=False, default=str)}")
    lines.append("Arguments:")
    lines += [
        f"  {a['field']}: {json.dumps(a['value'], ensure_ascii=False, default=str)}"
        for a in card.get("arguments", [])
    ]
    return "\n".join(lines)


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


def page_view(row: McpPendingCall) -> dict[str, Any]:
    tool = f"{row.router}_{row.action}"
    card = row.confirmation or {}
    return {
        "executionId": str(row.execution_id),
        "tool": tool,
        "state": _state(row),
        "confirm": row.confirm_policy,
        "card": card,
        "message": card_message(tool, card),
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
    return page_view(await _own_question(db, caller, execution_id))


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
