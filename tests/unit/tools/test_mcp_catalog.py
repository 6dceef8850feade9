"""MCP annotations and schemas come from the declaration (ToolSpec), nothing else."""

from __future__ import annotations

from typing import Any

from spotter.mcp.catalog import input_schema, mcp_name, tool_annotations
from spotter.tools.args import Args
from spotter.tools.router import Router
from spotter.tools.spec import ToolSpec


class _Args(Args):
    member_id: str
    note: str | None = None


async def _handler(ctx: Any, args: _Args) -> dict[str, Any]:
    return {}


def _spec(side_effects: str = "write", **options: Any) -> ToolSpec:
    router = Router("messages", "")
    declare = router.read if side_effects == "read" else router.write
    declare("send", "Send a message.", **options)(_handler)
    return router.specs["send"]


def test_external_effects_reach_the_open_world() -> None:
    hints = tool_annotations(_spec(external_effects=True, confirm="always"))
    assert (hints.open_world_hint, hints.destructive_hint, hints.read_only_hint) == (
        True, False, False,
    )  # fmt: skip


def test_a_write_is_idempotent_only_when_declared() -> None:
    assert tool_annotations(_spec()).idempotent_hint is False
    assert tool_annotations(_spec(idempotent=True)).idempotent_hint is True


def test_a_read_omits_the_destructive_hint() -> None:
    hints = tool_annotations(_spec("read"))
    assert (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint) == (
        True, None, True,
    )  # fmt: skip


def test_name_and_schema_unwrap_the_router_envelope() -> None:
    spec = _spec(mcp_fields={"sourceText": {"type": "string"}})
    assert mcp_name(spec) == "messages_send"
    schema = input_schema(spec)
    assert schema["required"] == ["memberId"]
    assert schema["properties"]["note"] == {"type": "string"}  # Optional collapsed, no title
    assert schema["properties"]["sourceText"] == {"type": "string"}
    assert schema["additionalProperties"] is False
