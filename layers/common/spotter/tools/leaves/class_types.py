"""class_types — the kinds of class on the timetable (CrossFit, Open Gym, ...)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from spotter.domain import schedule as domain
from spotter.tools.args import Args
from spotter.tools.context import ToolContext
from spotter.tools.router import Router
from spotter.tools.schedule_args import Capacity, Minutes
from spotter.tools.spec import MANAGERS, NameTarget

class_types = Router(
    "class_types", "Class types: the kinds of class sessions are made of.", roles=MANAGERS
)


class CreateArgs(Args):
    name: str = Field(min_length=1, max_length=80)
    minutes: Minutes = 60
    # default: unlimited
    capacity: Capacity | None = None
    description: str | None = Field(None, max_length=500)


@class_types.write(
    "create",
    "Create a class type (60 min, unlimited capacity unless given).",
    target=NameTarget(("name",)),
)
async def create_class_type(ctx: ToolContext, args: CreateArgs) -> dict[str, Any]:
    row = await domain.create_class_type(
        ctx.scope,
        name=args.name,
        minutes=args.minutes,
        capacity=args.capacity,
        description=args.description,
    )
    return domain.class_type_out(row)
