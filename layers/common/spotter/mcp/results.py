"""What an MCP tools/call answers: a JSON text block (and the same as structured content), or
an `isError` result `{code, message, ...}` with the tool vocabulary's stable codes."""

from __future__ import annotations

import json
from typing import Any, Literal
from uuid import UUID

from mcp_types import CallToolResult, TextContent

from spotter.errors import ErrorCode
from spotter.tools.calls import ToolOutcome
from spotter.tools.errors import ToolError, ToolErrorCode
from spotter.tools.spec import ToolSpec

# An MCP error result's code: the tool vocabulary, the agent's, and the one MCP adds.
McpResultCode = ToolErrorCode | ErrorCode | Literal["confirmation_required"]


def _error(body: dict[str, Any]) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(body, ensure_ascii=False, default=str))],
        is_error=True,
    )


def error_result(
    code: McpResultCode, message: str, body: dict[str, Any] | None = None
) -> CallToolResult:
    """An error result `{code, message}`, or `body` when it says more (it carries both)."""
    return _error(body if body is not None else {"code": code, "message": message})


def outcome_error(error: ToolError | None) -> CallToolResult:
    """A tool's error, exactly as the agent's model reads it."""
    return _error((error or ToolError("internal", "The call failed.")).as_json())


def outcome_result(spec: ToolSpec, outcome: ToolOutcome, execution_id: UUID) -> CallToolResult:
    """A finished call: its output, its execution id, and whether a write can be undone."""
    if not outcome.ok:
        return outcome_error(outcome.error)
    body: dict[str, Any] = {"output": outcome.output, "executionId": str(execution_id)}
    if spec.side_effects == "write":
        body["undoAvailable"] = spec.inverse is not None
    text = json.dumps(body, ensure_ascii=False, default=str)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=body)
