"""Entity namers for confirmation targets, shared by every router (`EntityTarget(entity, ...)`)."""

from __future__ import annotations

from uuid import UUID

from spotter.domain import names
from spotter.tools.context import ToolContext
from spotter.tools.previews import entity_namer


def _simple(entity: str) -> None:
    @entity_namer(entity)
    async def namer(ctx: ToolContext, entity_id: UUID) -> str | None:
        return await names.simple_name(ctx.conn, ctx.caller.org_id, entity, entity_id)


for _entity in sorted(names.SIMPLE_ENTITIES):
    _simple(_entity)


@entity_namer("member")
async def _member(ctx: ToolContext, membership_id: UUID) -> str | None:
    return await names.member_name(ctx.conn, ctx.caller.org_id, membership_id)


@entity_namer("class_session")
async def _session(ctx: ToolContext, session_id: UUID) -> str | None:
    return await names.session_label(
        ctx.conn, ctx.caller.org_id, session_id, ctx.tz, ctx.caller.locale
    )
