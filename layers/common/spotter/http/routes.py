"""The agent's JSON reads: conversations, one conversation, usage (see docs/architecture.md)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from fastapi import APIRouter

from spotter.agent.conversations import get_conversation, list_conversations
from spotter.agent.cost import usage_snapshot
from spotter.http.deps import AnyCaller, Db
from spotter.tools.summaries import Voice

router = APIRouter(prefix="/agent")


@router.get("/conversations")
async def conversations(caller: AnyCaller, db: Db) -> dict[str, Any]:
    async with db.org_tx(caller.org_id) as conn:
        items = await list_conversations(conn, caller.org_id, caller.user_id)
    return {"conversations": items}


@router.get("/conversations/{conversation_id}")
async def conversation(caller: AnyCaller, db: Db, conversation_id: UUID) -> dict[str, Any]:
    async with db.org_tx(caller.org_id) as conn:
        return await get_conversation(
            conn,
            caller.org_id,
            caller.user_id,
            conversation_id,
            voice=Voice.of(caller.locale, caller.org_timezone),
        )


@router.get("/usage")
async def usage(caller: AnyCaller, db: Db) -> dict[str, Any]:
    async with db.org_tx(caller.org_id) as conn:
        snapshot = await usage_snapshot(conn, caller.org_id, caller.platform_tier)
    return {
        "day": snapshot.day.isoformat(),
        "spentUsdMicros": snapshot.spent_usd_micros,
        "capUsdMicros": snapshot.cap_usd_micros,
        "remainingUsdMicros": snapshot.remaining_usd_micros,
        "percentUsed": snapshot.percent_used,
        "unmetered": snapshot.unmetered,
        "resetsAt": snapshot.resets_at.isoformat(),
    }
