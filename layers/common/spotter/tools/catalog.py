"""The catalog of every declared tool, filled by `@agent_tool` as router modules are imported."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable
from typing import Any, TypeVar, get_type_hints

from pydantic import BaseModel

from spotter.auth.caller import Role
from spotter.tools.spec import (
    STAFF,
    Audit,
    ConfirmationTarget,
    ConfirmPolicy,
    Inverse,
    PreviewMethod,
    SideEffects,
    ToolKind,
    ToolSpec,
)

F = TypeVar("F", bound=Callable[..., Any])


class ToolCatalog:
    """Tool specs by `router.action`, plus each router's one-line description."""

    def __init__(self) -> None:
        self.specs: dict[str, ToolSpec] = {}
        self.router_descriptions: dict[str, str] = {}

    def describe_router(self, router: str, description: str) -> None:
        self.router_descriptions[router] = description

    def tool(
        self,
        *,
        router: str,
        action: str,
        summary: str,
        roles: frozenset[Role] = STAFF,
        side_effects: SideEffects = "read",
        confirm: ConfirmPolicy = "never",
        preview: PreviewMethod | None = None,
        target: ConfirmationTarget | None = None,
        consequences: tuple[str, ...] = (),
        audit: Audit | None = None,
        inverse: Inverse | None = None,
        kind: ToolKind = "normal",
        mcp_summary: str | None = None,
        feature_gate: str | None = None,
        quick_action: bool = False,
        day_grain_only: bool = False,
        external_effects: bool = False,
    ) -> Callable[[F], F]:
        """Declare `handler(ctx, args: ArgsModel) -> dict` as the action `router.action`.

        The args model is read from the handler's second parameter's type hint.
        """

        def register(handler: F) -> F:
            params = list(inspect.signature(handler).parameters)
            if len(params) != 2:
                raise TypeError(f"{router}.{action}: a handler takes (ctx, args)")
            args_model = get_type_hints(handler).get(params[1])
            if not (isinstance(args_model, type) and issubclass(args_model, BaseModel)):
                raise TypeError(f"{router}.{action}: annotate args with a pydantic model")
            spec = ToolSpec(
                router=router,
                action=action,
                summary=summary,
                args_model=args_model,
                handler=handler,
                roles=roles,
                side_effects=side_effects,
                confirm=confirm,
                preview=preview,
                target=target,
                consequences=consequences,
                audit=audit,
                inverse=inverse,
                kind=kind,
                mcp_summary=mcp_summary,
                feature_gate=feature_gate,
                quick_action=quick_action,
                day_grain_only=day_grain_only,
                external_effects=external_effects,
            )
            if spec.name in self.specs:
                raise ValueError(f"tool {spec.name} is declared twice")
            self.specs[spec.name] = spec
            return handler

        return register


CATALOG = ToolCatalog()
agent_tool = CATALOG.tool
describe_router = CATALOG.describe_router

_loaded = False


def load_catalog() -> ToolCatalog:
    """Import every router module in `spotter.tools.leaves` (once) and return the catalog."""
    global _loaded
    if not _loaded:
        import spotter.tools.leaves as leaves
        import spotter.tools.namers  # noqa: F401  (registers the shared entity namers)

        for module in sorted(m.name for m in pkgutil.iter_modules(leaves.__path__)):
            importlib.import_module(f"spotter.tools.leaves.{module}")
        _loaded = True
    return CATALOG
