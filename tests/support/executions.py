"""Conversations with pending tool executions, written on the owner connection."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import psycopg
from psycopg.types.json import Jsonb

from tests.support.world import Org


@dataclass
class PendingMessage:
    conversation_id: uuid.UUID
    message_id: uuid.UUID
    execution_ids: list[uuid.UUID]


def pending_message(
    owner_url: str, org: Org, calls: int = 3, *, external: bool = False
) -> PendingMessage:
    conversation_id, message_id, run_id = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    ids = [uuid.uuid4() for _ in range(calls)]
    with psycopg.connect(owner_url) as conn:
        # a valid history: the user's turn (ordinal 0), then the assistant's calls (1)
        conn.execute(
            "INSERT INTO ai_conversations (id, organization_id, user_id, next_ordinal)"
            " VALUES (%s, %s, %s, 2)",
            (conversation_id, org.id, org["owner"].user_id),
        )
        conn.execute(
            "INSERT INTO ai_messages (organization_id, conversation_id, run_id, ordinal, role,"
            " content) VALUES (%s, %s, %s, 0, 'user', %s)",
            (org.id, conversation_id, run_id, Jsonb([{"type": "text", "text": "please"}])),
        )
        blocks = [
            {
                "type": "tool_use",
                "id": f"toolu_{i}_{message_id.hex[:6]}",
                "name": "programs",
                "input": {},
            }
            for i in range(calls)
        ]
        conn.execute(
            "INSERT INTO ai_messages (id, organization_id, conversation_id, run_id, ordinal, role, content)"
            " VALUES (%s, %s, %s, %s, 1, 'assistant', %s)",
            (message_id, org.id, conversation_id, run_id, Jsonb(blocks)),
        )
        for position, (execution_id, block) in enumerate(zip(ids, blocks, strict=True)):
            conn.execute(
                "INSERT INTO ai_tool_executions (id, organization_id, conversation_id, message_id, position,"
                " tool_use_id, router, action, status, confirm_policy, external_effects)"
                " VALUES (%s, %s, %s, %s, %s, %s, 'programs', 'archive', 'pending', 'destructive', %s)",
                (
                    execution_id,
                    org.id,
                    conversation_id,
                    message_id,
                    position,
                    block["id"],
                    external,
                ),
            )
    return PendingMessage(conversation_id, message_id, ids)


def statuses(owner_url: str, ids: list[uuid.UUID]) -> list[str]:
    with psycopg.connect(owner_url) as conn:
        rows = conn.execute(
            "SELECT id, status FROM ai_tool_executions WHERE id = ANY(%s)", (ids,)
        ).fetchall()
    by_id = dict(rows)
    return [by_id[i] for i in ids]
