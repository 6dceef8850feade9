"""A picker's candidates as the user sees them: named by the server from their ids.

The model proposes ids (and labels); the server names each id through the entity namers
(`tools.entities`: one org-scoped primary-key lookup), and a person also by their email (or
role), so a member is shown as herself whatever the model wrote beside her id: for an entity,
the model's label, sublabel and detail are at most hints and are never shown. An id that names
no record of the kind (another org's, removed, deleted, not an id) refuses the call `not_found`,
and nobody is asked. Kind `other` names no entity: its labels are the model's, and its ids may
not be record ids (a UUID), so nothing of the gym is offered under a label the server did not
write.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from spotter.domain import names
from spotter.tools.calls import ResolvedCall
from spotter.tools.context import ToolContext
from spotter.tools.entities import namer_for
from spotter.tools.errors import ToolArgsError, not_found

# a picker's kind → the entity its ids name (`other`: none)
PICK_ENTITIES: dict[str, str] = {
    "member": "member",
    "coach": "member",
    "program": "program",
    "workout": "workout",
    "exercise": "exercise",
    "class_session": "class_session",
    "class_type": "class_type",
}
_STAFF = frozenset({"owner", "admin", "coach"})
MAX_LABEL = 120  # the picker's label and sublabel bounds (`read.PickArgs`)


def _record_id(raw: str) -> UUID | None:
    try:
        return UUID(raw)
    except ValueError:
        return None


def _bounded(text: str) -> str:
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1].rstrip() + "…"


async def _named(ctx: ToolContext, kind: str, raw_id: str) -> dict[str, Any]:
    entity_id = _record_id(raw_id)
    if entity_id is None:
        raise not_found(kind.replace("_", " "))
    if PICK_ENTITIES[kind] == "member":
        name, email, role = await names.person(ctx.scope, entity_id)
        if kind == "coach" and role not in _STAFF:
            raise not_found("coach")
        return {"id": str(entity_id), "label": _bounded(name), "sublabel": _bounded(email or role)}
    namer = namer_for(PICK_ENTITIES[kind])
    if namer is None:
        raise RuntimeError(f"no namer for entity {PICK_ENTITIES[kind]}")
    label = await namer(ctx, entity_id)
    return {"id": str(entity_id), "label": _bounded(label or kind.replace("_", " "))}


async def server_labelled(ctx: ToolContext, call: ResolvedCall) -> ResolvedCall:
    """The picker call with each candidate as the server names it (what is stored, shown and
    picked from); raises `not_found` / `invalid_args` instead of a picker."""
    args = call.args.model_dump(mode="json", by_alias=True, exclude_none=True)
    kind = str(args["kind"])
    if kind not in PICK_ENTITIES:
        if any(_record_id(str(c["id"])) is not None for c in args["candidates"]):
            raise ToolArgsError(
                "A candidate whose id is a record's needs that record's kind, not 'other'.",
                field="candidates",
            )
        return call
    candidates = [await _named(ctx, kind, str(c["id"])) for c in args["candidates"]]
    labelled = call.spec.args_model.model_validate({**args, "candidates": candidates})
    return ResolvedCall(call.spec, labelled)
