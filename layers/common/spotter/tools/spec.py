"""What a tool declares: one `ToolSpec` per router action, built by `Router.read` / `.write`.

`ActionOptions` is the one options type: the keyword arguments of `Router(...)` (defaults for
every action), of `Router.read` / `Router.write` (per action), and what a `ToolSpec` stores.
The properties below are the read surface (with each option's default, stated once here).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypedDict, TypeVar
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


class ActionOptions(TypedDict, total=False):
    roles: frozenset[Role]
    confirm: ConfirmPolicy
    preview: PreviewMethod
    target: ConfirmationTarget
    consequences: tuple[str, ...]
    # Writes: derived from the router's resource and the action unless given.
    audit: Audit
    inverse: Inverse[Any]
    kind: ToolKind
    mcp_summary: str
    # Arguments only the MCP channel may send (hidden from the model's schema): their JSON schema
    # joins the args schema on the MCP server. workouts' `sourceText` and `scores`.
    mcp_fields: dict[str, dict[str, Any]]
    # A write that leaves the same state when repeated with the same arguments (MCP's
    # idempotentHint). Reads always are.
    idempotent: bool
    feature_gate: str
    quick_action: bool
    # Only day-grain orgs see it (workouts.parse / workouts.upsert).
    day_grain_only: bool
    # Effects outside our database (email, SES, webhooks): a crash mid-call leaves the outcome
    # unknown. Database-only tools commit their effect with their execution row, atomically.
    external_effects: bool


@dataclass(frozen=True)
class ToolSpec:
    router: str
    action: str
    summary: str
    args_model: type[BaseModel]
    handler: Handler
    side_effects: SideEffects = "read"
    options: ActionOptions = field(default_factory=lambda: ActionOptions())

    @property
    def name(self) -> str:
        return f"{self.router}.{self.action}"

    @property
    def roles(self) -> frozenset[Role]:
        return self.options.get("roles", STAFF)

    @property
    def confirm(self) -> ConfirmPolicy:
        return self.options.get("confirm", "never")

    @property
    def preview(self) -> PreviewMethod | None:
        return self.options.get("preview")

    @property
    def target(self) -> ConfirmationTarget | None:
        return self.options.get("target")

    @property
    def consequences(self) -> tuple[str, ...]:
        return self.options.get("consequences", ())

    @property
    def audit(self) -> Audit | None:
        return self.options.get("audit")

    @property
    def inverse(self) -> Inverse[Any] | None:
        return self.options.get("inverse")

    @property
    def kind(self) -> ToolKind:
        return self.options.get("kind", "normal")

    @property
    def mcp_summary(self) -> str | None:
        return self.options.get("mcp_summary")

    @property
    def mcp_fields(self) -> dict[str, dict[str, Any]]:
        return self.options.get("mcp_fields", {})

    @property
    def idempotent(self) -> bool:
        return self.side_effects == "read" or self.options.get("idempotent", False)

    @property
    def feature_gate(self) -> str | None:
        return self.options.get("feature_gate")

    @property
    def quick_action(self) -> bool:
        return self.options.get("quick_action", False)

    @property
    def day_grain_only(self) -> bool:
        return self.options.get("day_grain_only", False)

    @property
    def external_effects(self) -> bool:
        return self.options.get("external_effects", False)

    @property
    def parallel_safe(self) -> bool:
        """A read that never confirms and never asks the user may run beside other reads."""
        return self.side_effects == "read" and not needs_user(self.kind, self.confirm)
