"""Confirmation cards: what a human approves, resolved on the server, never from model prose.

A tool declares a bespoke `preview` method, or a target: an entity looked up by id (one
org-scoped primary-key lookup), a name spelled by its arguments, or a count of what it touches.
Every card also carries the exact validated arguments for an expandable review.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from spotter.tools.asking import awaits_pick
from spotter.tools.calls import ResolvedCall
from spotter.tools.cards import Confirmation
from spotter.tools.context import ToolContext
from spotter.tools.entities import namer_for
from spotter.tools.errors import ToolArgsError, not_found
from spotter.tools.pickers import server_labelled
from spotter.tools.spec import CountTarget, EntityTarget, NameTarget


def exact_arguments(call: ResolvedCall) -> list[dict[str, Any]]:
    dumped = call.args.model_dump(mode="json", exclude_none=True, by_alias=True)
    return [{"field": key, "value": value} for key, value in dumped.items()]


async def _target_name(ctx: ToolContext, call: ResolvedCall) -> tuple[str | None, int | None]:
    target = call.spec.target
    values = call.args.model_dump()
    if isinstance(target, EntityTarget):
        raw = values.get(target.id_field)
        if raw is None:
            raise ToolArgsError(f"{target.id_field} is required.")
        namer = namer_for(target.entity)
        if namer is None:
            raise RuntimeError(f"no namer for entity {target.entity}")
        try:
            entity_id = raw if isinstance(raw, UUID) else UUID(str(raw))
        except ValueError as exc:
            raise not_found(target.entity.replace("_", " ")) from exc
        return await namer(ctx, entity_id), 1
    if isinstance(target, NameTarget):
        parts = [str(values[f]).strip() for f in target.name_fields if values.get(f)]
        return (" ".join(parts) or None), None
    if isinstance(target, CountTarget):
        items = values.get(target.count_field) or []
        return None, len(items)
    return None, None


async def build_confirmation(ctx: ToolContext, call: ResolvedCall) -> Confirmation:
    """The card for a confirmable call; raises a refusal (`tools.errors.Refusal`, e.g. not_found)
    instead of a card."""
    spec = call.spec
    card = await spec.preview(ctx, call.args) if spec.preview else Confirmation()
    target, count = await _target_name(ctx, call) if spec.target else (None, None)
    consequences = list(dict.fromkeys([*spec.consequences, *card.consequences]))
    return card.model_copy(
        update={
            "target": card.target if card.target is not None else target,
            "affected_count": card.affected_count if card.affected_count is not None else count,
            "consequences": consequences,
            "arguments": exact_arguments(call),
        }
    )


async def what_is_asked(
    ctx: ToolContext, call: ResolvedCall
) -> tuple[ResolvedCall, Confirmation | None]:
    """What a person is asked about a call that needs one, built on the server on every
    channel: an approval's card (the call as it is), or a picker's candidates named from their
    ids (the call with them, `tools.pickers`). Raises a refusal instead when it cannot be built:
    nobody is asked about what cannot succeed."""
    if awaits_pick(call.spec.kind):
        return await server_labelled(ctx, call), None
    return call, await build_confirmation(ctx, call)
