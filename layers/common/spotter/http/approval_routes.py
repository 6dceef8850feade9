"""The approval page's API: a pending MCP call's card, and the person's decision on it
(`spotter.mcp.approval_page`). Behind the dashboard's login: a session token, staff only.

The page's module (the approvals' resolution, and with it the tool runner and every tool's
definitions) is imported by the route that runs it, not with the app: the reads function, which
serves these two routes beside the reads, pays for it on its first approval instead of on every
cold start (under SnapStart, `spotter.aws.reads` imports it before the snapshot)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from fastapi import APIRouter

from spotter.http.bodies import ApprovalDecisionBody
from spotter.http.deps import Db, StaffCaller

router = APIRouter(prefix="/agent/approvals")


@router.get("/{execution_id}")
async def approval(caller: StaffCaller, db: Db, execution_id: UUID) -> dict[str, Any]:
    from spotter.mcp import approval_page

    return await approval_page.show(db, caller, execution_id)


@router.post("/{execution_id}")
async def decide(
    caller: StaffCaller, db: Db, execution_id: UUID, body: ApprovalDecisionBody
) -> dict[str, Any]:
    from spotter.mcp import approval_page

    return await approval_page.decide(
        db, caller, execution_id, body.decision == "approve", body.reason
    )
