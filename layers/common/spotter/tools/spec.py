"""What a tool declares: one `ToolSpec` per router action, built by `@agent_tool`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from spotter.auth.caller import Role

if TYPE_CHECKING:
    from spotter.tools.cards import Confirmation
    from spotter.tools.context import ToolContext

SideEffects = Literal["read", "write"]
ConfirmPolicy = Literal["never", "destructive", "always"]
ToolKind = Literal["normal", "user_picker"]

ALL_ROLES: frozenset[Role] = frozenset({"owner", "admin", "coach", "member"})
STAFF: frozenset[Role] = frozenset({"owner", "admin", "coach"})
MANAGERS: frozenset[Role] = frozenset({"owner", "admin"})

Handler = Callable[["ToolContext", Any], Awaitable[dict[str, Any]]]
PreviewMethod = Callable[["ToolContext", Any], Awaitable["Confirmation"]]


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
class Inverse:
    """How to undo a successful call: another action, fed from the stored output."""

    router: str
    action: str
    build_input: Callable[[dict[str, Any]], dict[str, Any]]


def id_inverse(router: str, action: str, key: str = "id") -> Inverse:
    """The common inverse: call `router.action` with `{key: output["id"]}`."""
    return Inverse(router, action, lambda output: {key: output["id"]})


@dataclass(frozen=True)
class ToolSpec:
    router: str
    action: str
    summary: str
    args_model: type[BaseModel]
    handler: Handler
    roles: frozenset[Role] = STAFF
    side_effects: SideEffects = "read"
    confirm: ConfirmPolicy = "never"
    preview: PreviewMethod | None = None
    target: ConfirmationTarget | None = None
    consequences: tuple[str, ...] = ()
    audit: Audit | None = None
    inverse: Inverse | None = None
    kind: ToolKind = "normal"
    mcp_summary: str | None = None
    feature_gate: str | None = None
    quick_action: bool = False
    # Only day-grain orgs see it (workouts.parse / workouts.upsert).
    day_grain_only: bool = False
    # Effects outside our database (email, SES, webhooks): a crash mid-call leaves the outcome
    # unknown. Database-only tools commit their effect with their execution row, atomically.
    external_effects: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.router}.{self.action}"

    @property
    def needs_confirmation(self) -> bool:
        return self.confirm != "never"

    @property
    def parallel_safe(self) -> bool:
        """A read that never confirms and never asks the user may run beside other reads."""
        return self.side_effects == "read" and self.confirm == "never" and self.kind == "normal"
