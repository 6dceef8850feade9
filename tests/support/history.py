"""The history invariant, checked over every stored conversation after a test.

What replay sends must be valid without repair: user turns first and roles alternating (stored
consecutive user turns merge, as `transcript.replay.alternating` sends them), every tool_use
answered in the very next message, and every tool_result there answering a tool_use of the
previous message, in the same order, once; no tool_use id twice. The last assistant message may
still wait for its results (a suspended run: they are written when the message is resolved or
the next one is sent)."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row


def _api_role(role: str) -> str:
    return "assistant" if role == "assistant" else "user"


def violations(messages: list[dict[str, Any]]) -> list[str]:
    """What is wrong with one conversation's messages (API roles, stored order)."""
    merged: list[dict[str, Any]] = []
    for m in messages:
        if merged and m["role"] == "user" and merged[-1]["role"] == "user":
            merged[-1] = {"role": "user", "content": [*merged[-1]["content"], *m["content"]]}
        else:
            merged.append(m)
    found: list[str] = []
    # the Messages API refuses a tool_use id used twice in one request (issue 30 item 4)
    ids = [b["id"] for m in merged for b in m["content"] if b.get("type") == "tool_use"]
    found += [f"tool_use id {i} used twice" for i in sorted({i for i in ids if ids.count(i) > 1})]
    if merged and merged[0]["role"] != "user":
        found.append("the first message is not the user's")
    for i, m in enumerate(merged):
        if i and m["role"] == merged[i - 1]["role"]:
            found.append(f"message {i}: two {m['role']} turns in a row")
        previous = merged[i - 1] if i else None
        uses = (
            [b["id"] for b in previous["content"] if b.get("type") == "tool_use"]
            if previous is not None and previous["role"] == "assistant"
            else []
        )
        results = [b["tool_use_id"] for b in m["content"] if b.get("type") == "tool_result"]
        if m["role"] == "user" and results != uses:
            found.append(f"message {i}: results {results} do not answer {uses} in order")
        if m["role"] == "user" and uses and not results:
            found.append(f"message {i}: tool_use {uses} unanswered")
    return found


def stored_history_violations(url: str) -> dict[str, list[str]]:
    """Every conversation's violations, by conversation id (empty: all valid)."""
    with psycopg.connect(url, row_factory=dict_row) as conn:
        rows = conn.execute(
            "SELECT conversation_id, role, content FROM ai_messages"
            " ORDER BY conversation_id, ordinal"
        ).fetchall()
    by_conversation: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_conversation.setdefault(str(r["conversation_id"]), []).append(
            {"role": _api_role(r["role"]), "content": r["content"]}
        )
    report = {cid: violations(msgs) for cid, msgs in by_conversation.items()}
    return {cid: v for cid, v in report.items() if v}
