"""Entity namers: how a confirmation card names the entity an `EntityTarget` points at.

The shared entities are named here; a leaf registers the namers of its own entities.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from uuid import UUID

from spotter.domain import names
from spotter.tools.context import ToolContext

# entity -> lookup of its bare display name (None if it has none); raise not_found when missing.
EntityNamer = Callable[[ToolContext, UUID], Awaitable[str | None]]
_NAMERS: dict[str, EntityNamer] = {}


def entity_namer(entity: str) -> Callable[[EntityNamer], EntityNamer]:
    def register(namer: EntityNamer) -> EntityNamer:
        if entity in _NAMERS:
            raise ValueError(f"entity {entity} already has a namer")
        _NAMERS[entity] = namer
        return namer

    return register


def namer_for(entity: str) -> EntityNamer | None:
    return _NAMERS.get(entity)


def known_entities() -> frozenset[str]:
    return frozenset(_NAMERS)


def _simple(entity: str) -> None:
    @entity_namer(entity)
    async def namer(ctx: ToolContext, entity_id: UUID) -> str | None:
        return await names.simple_name(ctx.scope, entity, entity_id)


for _entity in sorted(names.SIMPLE_ENTITIES):
    _simple(_entity)


@entity_namer("member")
async def _member(ctx: ToolContext, membership_id: UUID) -> str | None:
    return await names.member_name(ctx.scope, membership_id)


@entity_namer("class_session")
async def _session(ctx: ToolContext, session_id: UUID) -> str | None:
    return await names.session_label(ctx.scope, session_id, ctx.tz, ctx.caller.locale)
