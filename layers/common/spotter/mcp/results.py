"""What an MCP tools/call answers: a JSON text block (and the same as structured content), or
an `isError` result `{code, message, ...}` with the tool vocabulary's stable codes."""

from __future__ import annotations

import json
from typing import Any, Literal, cast
from uuid import UUID

from mcp_types import CallToolResult, TextContent

from spotter.errors import ErrorCode
from spotter.tools.calls import ToolOutcome
from spotter.tools.errors import ToolErrorCode
from spotter.tools.spec import ToolSpec

# An MCP error result's code: the tool vocabulary, the agent's, and the one MCP adds.
McpResultCode = ToolErrorCode | ErrorCode | Literal["confirmation_required"]


def error_result(code: McpResultCode, message: str, **details: Any) -> CallToolResult:
    body = {"code": code, "message": message, **details}
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(body, ensure_ascii=False, default=str))],
        is_error=True,
    )


def outcome_error(error: dict[str, Any]) -> CallToolResult:
    details = {k: v for k, v in error.items() if k not in ("code", "message")}
    # A stored or runner error: its code is already one of the tool vocabulary's.
    code = cast(McpResultCode, str(error.get("code", "internal")))
    return error_result(code, str(error.get("message", "")), **details)


def outcome_result(spec: ToolSpec, outcome: ToolOutcome, execution_id: UUID) -> CallToolResult:
    """A finished call: its output, its execution id, and whether a write can be undone."""
    if not outcome.ok:
        return outcome_error(outcome.error or {})
    body: dict[str, Any] = {"output": outcome.output, "executionId": str(execution_id)}
    if spec.side_effects == "write":
        body["undoAvailable"] = spec.inverse is not None
    text = json.dumps(body, ensure_ascii=False, default=str)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=body)
