"""Replaying stored history to the model: thinking kept only where it may be, what the caller
may not read withheld, orphans repaired.

Everything here is a pure function of the stored rows and the caller's role, so a replay is
byte-identical run after run and the prompt cache written by one run is read by the next.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from spotter.agent.cost import ModelCall, base_model_id
from spotter.agent.transcript.history import StoredMessage
from spotter.agent.transcript.message_log import MessageRole
from spotter.agent.transcript.projection import projection
from spotter.agent.transcript.slimming import Row, slim_for_replay
from spotter.domain.form_compliance import may_read_health, withhold_health_answers
from spotter.tools.errors import ToolError

THINKING_TYPES = frozenset({"thinking", "redacted_thinking"})
INTERRUPTED = ToolError(
    "interrupted",
    "This call has no result: the conversation moved on before it completed. "
    "Do not assume it ran; check before repeating it.",
)


def api_role(role: MessageRole) -> Literal["user", "assistant"]:
    # tool_result and system_note rows are user turns to the model
    return "assistant" if role == "assistant" else "user"


def replay_messages(
    stored: list[StoredMessage], call: ModelCall, *, role: str | None
) -> list[dict[str, Any]]:
    """Stored rows as API messages: from the newest compaction summary on (the projection),
    the tool results as the caller's `role` may read them now, old runs slimmed, thinking
    blocks — signed by the model that wrote them — kept only when this call thinks and the turn
    came from the same model, and roles alternating."""
    rows = [as_read_by(row, role) for row in projection([m.as_row() for m in stored])]
    messages: list[dict[str, Any]] = []
    for row, content in zip(rows, slim_for_replay(rows), strict=True):
        if row["role"] == "assistant":
            model = row["model"]
            same_model = model is not None and base_model_id(model) == base_model_id(call.model)
            if not (call.thinks and same_model):
                content = [b for b in content if b.get("type") not in THINKING_TYPES]
        messages.append({"role": api_role(row["role"]), "content": content})
    return alternating(messages)


def as_read_by(row: Row, role: str | None) -> Row:
    """A stored row with its tool results as someone of `role` may read them now: the tool
    withheld what the caller then could not read, but a call an owner made holds her health
    answers, and once she is a coach her next turn must not hand them to the model (which could
    repeat them to her). The one rule (`domain.form_compliance.withhold_health_answers`), as
    the stream's and the conversation's readers apply it; a result it leaves alone is the
    stored block itself, so a manager's replay (and anyone's without health answers) is
    byte-identical to the stored one."""
    if row["role"] != "tool_result" or may_read_health(role):
        return row
    content = [_result_as_read_by(block, role) for block in row["content"]]
    if all(new is old for new, old in zip(content, row["content"], strict=True)):
        return row
    return {**row, "content": content}


def _result_as_read_by(block: dict[str, Any], role: str | None) -> dict[str, Any]:
    text = block.get("content")
    # only a submission's output has both keys: nothing else is parsed
    if block.get("is_error") or not isinstance(text, str) or '"formKind"' not in text:
        return block
    try:
        payload = json.loads(text)
    except ValueError:
        return block
    shown = withhold_health_answers(payload, role)
    if shown is payload:
        return block
    return {**block, "content": json.dumps(shown, ensure_ascii=False, default=str)}


def alternating(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive user turns become one user message, their blocks in stored order. They occur
    when a run failed after its results were stored (a provider error, `max_turns_reached`,
    `provider_output_truncated`) or a superseded call was answered, and the next user turn
    follows. The provider renders consecutive user turns as one turn anyway, so the cached
    prefix of earlier runs stays byte-identical block for block, and the roles alternate."""
    merged: list[dict[str, Any]] = []
    for message in messages:
        if merged and message["role"] == "user" and merged[-1]["role"] == "user":
            merged[-1] = {"role": "user", "content": [*merged[-1]["content"], *message["content"]]}
        else:
            merged.append(message)
    return merged


def canonical(value: Any) -> Any:
    """Keys sorted at every depth. Postgres jsonb does not keep key order, so a turn fresh from
    the model and the same turn read back from a row only serialize alike in a canonical form —
    which the prompt cache needs, byte for byte."""
    if isinstance(value, dict):
        return {k: canonical(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [canonical(v) for v in value]
    return value


def tool_result_block(tool_use_id: str, ok: bool, payload: Any) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": json.dumps(payload, ensure_ascii=False, default=str),
    }
    if not ok:
        block["is_error"] = True
    return block


@dataclass(frozen=True)
class Violation:
    message_index: int
    orphaned_tool_use_ids: list[str]


@dataclass(frozen=True)
class ReplayCheck:
    ok: bool
    violations: list[Violation]  # tool_uses with no result next: answered by synthesized errors
    # tool_results answering no tool_use of the message before them: dropped (they answer
    # nothing the model asked; the Messages API refuses them)
    stray_results: list[Violation] = field(default_factory=list)
    # what repair does not fix, by kind — the history does not start with the user, roles do not
    # alternate, a message is empty, a tool_use id is used twice: the Messages API would refuse
    # the request, so the run stops with `replay_integrity_violation` instead of sending it
    problems: list[str] = field(default_factory=list)


def _tool_use_ids(message: dict[str, Any] | None) -> list[str]:
    if message is None or message["role"] != "assistant":
        return []
    return [b["id"] for b in message["content"] if b.get("type") == "tool_use"]


def _result_ids(message: dict[str, Any] | None) -> set[str]:
    if message is None or message["role"] != "user":
        return set()
    return {b["tool_use_id"] for b in message["content"] if b.get("type") == "tool_result"}


def validate_replay(messages: list[dict[str, Any]]) -> ReplayCheck:
    """Every assistant tool_use must be answered by a tool_result in the very next message, and
    every tool_result must answer one of the message before it (both repaired); the rest of
    what the Messages API requires is checked as `problems`, which repair does not fix."""
    violations, strays = [], []
    for i, message in enumerate(messages):
        previous = messages[i - 1] if i else None
        following = messages[i + 1] if i + 1 < len(messages) else None
        answered = _result_ids(following)
        orphans = [tid for tid in _tool_use_ids(message) if tid not in answered]
        if orphans:
            violations.append(Violation(i, orphans))
        asked = set(_tool_use_ids(previous))
        stray = sorted(_result_ids(message) - asked)
        if stray:
            strays.append(Violation(i, stray))
    problems = _problems(messages)
    return ReplayCheck(not (violations or strays or problems), violations, strays, problems)


def _problems(messages: list[dict[str, Any]]) -> list[str]:
    found: list[str] = []
    if not messages or messages[0]["role"] != "user":
        found.append("first_message_not_user")
    seen: set[str] = set()
    for i, message in enumerate(messages):
        if i and messages[i - 1]["role"] == message["role"]:
            found.append("roles_not_alternating")
        if not message["content"]:
            found.append("empty_message")
        ids = _tool_use_ids(message)
        if seen & set(ids) or len(set(ids)) != len(ids):
            found.append("duplicate_tool_use_id")
        seen.update(ids)
    return list(dict.fromkeys(found))


def repair_replay(messages: list[dict[str, Any]], check: ReplayCheck) -> list[dict[str, Any]]:
    """Drop results that answer nothing, then synthesize error tool_results for orphans, first
    in the next user turn (or a new one). Deterministic: a pure function of the messages."""
    repaired = list(messages)
    for stray in check.stray_results:
        drop = set(stray.orphaned_tool_use_ids)
        content = repaired[stray.message_index]["content"]
        kept = [
            b for b in content if not (b.get("type") == "tool_result" and b["tool_use_id"] in drop)
        ]
        repaired[stray.message_index] = {"role": "user", "content": kept}
    # back to front, so earlier indexes stay valid as turns are inserted
    for violation in sorted(check.violations, key=lambda v: v.message_index, reverse=True):
        blocks = [
            tool_result_block(tid, False, INTERRUPTED.as_json())
            for tid in violation.orphaned_tool_use_ids
        ]
        nxt = violation.message_index + 1
        if nxt < len(repaired) and repaired[nxt]["role"] == "user":
            repaired[nxt] = {"role": "user", "content": blocks + list(repaired[nxt]["content"])}
        else:
            repaired.insert(nxt, {"role": "user", "content": blocks})
    return repaired


def block_types(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What may be logged of a history: roles and block types, never content."""
    return [{"role": m["role"], "blocks": [b.get("type") for b in m["content"]]} for m in messages]
