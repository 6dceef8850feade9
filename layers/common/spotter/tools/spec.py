"""What a tool declares: one `ToolSpec` per router action, built by `Router.read` / `.write`.

`ToolOptions` is the one options type, each option with its default in its signature: the
keyword arguments of `Router(...)` and `.group(...)` (defaults for their actions) and of
`.read` / `.write` (per action). A `ToolSpec` is an action's identity plus its resolved options,
so `spec.roles` is the option itself, not a getter with a default of its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar
from uuid import UUID

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel

from spotter.auth.caller import Role
from spotter.tools.asking import ConfirmPolicy, ToolKind, needs_user
from spotter.tools.errors import ToolArgsError

if TYPE_CHECKING:
    from spotter.tools.cards import Confirmation
    from spotter.tools.context import ToolContext

SideEffects = Literal["read", "write"]

ALL_ROLES: frozenset[Role] = frozenset({"owner", "admin", "coach", "member"})
STAFF: frozenset[Role] = frozenset({"owner", "admin", "coach"})
MANAGERS: frozenset[Role] = frozenset({"owner", "admin"})

# A handler returns a JSON-able dict, or an `Output` model when an inverse reads its result.
Handler = Callable[["ToolContext", Any], Awaitable[Any]]
PreviewMethod = Callable[["ToolContext", Any], Awaitable["Confirmation"]]


class Output(BaseModel):
    """A handler's typed result: the fields an inverse reads, typed; every other key kept as is.

    It is stored and streamed as the same camelCase JSON a plain dict would have been.
    """

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")

    def wire(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True)


class Identified(Output):
    """An output whose `id` an inverse reads (the created or changed entity)."""

    id: UUID


OutputT = TypeVar("OutputT", bound=Output)


@dataclass(frozen=True)
class EntityTarget:
    """The target is the name of one entity, looked up by the id in `id_field`."""

    entity: str
    id_field: str


@dataclass(frozen=True)
class NameTarget:
    """The target is spelled by the arguments themselves (e.g. the title of a new workout)."""

    name_fields: tuple[str, ...]


@dataclass(frozen=True)
class CountTarget:
    """The call affects as many things as the list in `count_field` holds."""

    count_field: str


ConfirmationTarget = EntityTarget | NameTarget | CountTarget


@dataclass(frozen=True)
class Audit:
    resource: str
    action_label: str


@dataclass(frozen=True)
class Inverse(Generic[OutputT]):
    """How to undo a successful call: another action's arguments, built from the typed output.

    `router` defaults to the declaring router (filled in by `Router.write`).
    """

    action: str
    output: type[OutputT]
    build: Callable[[OutputT], BaseModel]
    router: str = ""

    def build_input(self, stored: Any) -> dict[str, Any]:
        """The inverse's `args` from a stored output; `ToolArgsError` if it cannot be built."""
        try:
            args = self.build(self.output.model_validate(stored))
        except ValidationError as exc:
            raise ToolArgsError("The stored output does not build this inverse.") from exc
        return args.model_dump(mode="json", by_alias=True, exclude_none=True)


@dataclass(frozen=True, kw_only=True)
class ToolOptions:
    """How an action behaves besides its handler; each option's default is stated here, once.

    `Router(...)` and `.group(...)` take these keywords as defaults for their actions, `.read` /
    `.write` per action (the action's win over its group's, the group's over its router's).
    """

    roles: frozenset[Role] = STAFF
    confirm: ConfirmPolicy = "never"
    # Builds the confirmation card (the target, counts, changes); else `target` names it.
    preview: PreviewMethod | None = None
    target: ConfirmationTarget | None = None
    consequences: tuple[str, ...] = ()
    # What a write changes, named in its derived audit label; empty: the router's name without a
    # trailing "s".
    resource: str = ""
    # Writes: derived from the resource and the action unless given.
    audit: Audit | None = None
    inverse: Inverse[Any] | None = None
    kind: ToolKind = "normal"
    mcp_summary: str | None = None
    # Arguments only the MCP channel may send (hidden from the model's schema): their JSON schema
    # joins the args schema on the MCP server. workouts' `sourceText` and `scores`.
    mcp_fields: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Leaves the same state when repeated with the same arguments (MCP's idempotentHint). Every
    # read is: `Router.read` sets it.
    idempotent: bool = False
    feature_gate: str | None = None
    quick_action: bool = False
    # Only day-grain orgs see it (workouts.parse / workouts.upsert).
    day_grain_only: bool = False
    # Only orgs whose type keeps forms see it (the forms router; `domain.form_compliance`).
    forms_only: bool = False
    # Effects outside our database (email, SES, webhooks): a crash mid-call leaves the outcome
    # unknown. Database-only tools commit their effect with their execution row, atomically.
    external_effects: bool = False


def action_tool_name(router: str, action: str) -> str:
    """One action as a tool of its own (`bookings_book`): the name MCP clients call it by and an
    AI SDK dashboard types its tool parts by (`tool-bookings_book`). The model sees one tool per
    router instead (`{action, args}`)."""
    return f"{router}_{action}"


@dataclass(frozen=True, kw_only=True)
class ToolSpec(ToolOptions):
    """One declared action: its name, summary, args model and handler, with its options resolved."""

    router: str
    action: str
    summary: str
    args_model: type[BaseModel]
    handler: Handler
    side_effects: SideEffects = "read"

    @property
    def name(self) -> str:
        return f"{self.router}.{self.action}"

    @property
    def action_tool_name(self) -> str:
        return action_tool_name(self.router, self.action)

    @property
    def parallel_safe(self) -> bool:
        """A read that never confirms and never asks the user may run beside other reads."""
        return self.side_effects == "read" and not needs_user(self.kind, self.confirm)
