"""A `Router` per leaf: its name and description once, defaults for its actions, and decorators.

    programs = Router("programs", "Programs: named tracks that workouts belong to.")

    @programs.read("list", "List programs (active unless asked).")
    async def list_programs(ctx: ToolContext, args: ListArgs) -> dict[str, Any]: ...

    @programs.write("archive", "Archive a program.", confirm="destructive", target=...)
    async def archive_program(ctx: ToolContext, args: ArchiveArgs) -> ProgramOut: ...

Options given to `Router(...)` apply to every action unless the action gives its own. A write is
audited as `<resource>.<past tense of the action>` (`create` -> `program.created`, `set_days` ->
`program_template.days_set`), resource being the router's name without a trailing "s"; pass
`audit=Audit(...)` where the label is another. The args model is read from the handler's second
parameter's type hint; an action with an inverse must return the inverse's `output` model.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar, Unpack, get_type_hints

from pydantic import BaseModel

from spotter.tools.spec import ActionOptions, Audit, SideEffects, ToolSpec

F = TypeVar("F", bound=Callable[..., Any])

_PAST = {"set": "set", "cancel": "cancelled", "book": "created"}


def _past(verb: str) -> str:
    if verb in _PAST:
        return _PAST[verb]
    return verb + ("d" if verb.endswith("e") else "ed")


def derived_audit(resource: str, action: str) -> Audit:
    """`create` -> `<resource>.created`; `verb_object` -> `<resource>.object_verbed`."""
    verb, _, rest = action.partition("_")
    return Audit(resource, f"{resource}.{rest + '_' if rest else ''}{_past(verb)}")


class Router:
    """One Anthropic tool: a named group of actions with shared defaults."""

    def __init__(
        self,
        name: str,
        description: str,
        *,
        resource: str | None = None,
        **defaults: Unpack[ActionOptions],
    ) -> None:
        self.name = name
        self.description = description
        self.resource = resource or name.removesuffix("s")
        self.defaults = defaults
        self.specs: dict[str, ToolSpec] = {}

    def read(self, action: str, summary: str, **options: Unpack[ActionOptions]) -> Callable[[F], F]:
        """Declare `handler(ctx, args)` as a read: it never changes anything."""
        return self._declare("read", action, summary, options)

    def write(
        self, action: str, summary: str, **options: Unpack[ActionOptions]
    ) -> Callable[[F], F]:
        """Declare `handler(ctx, args)` as a write: audited, possibly confirmed and undoable."""
        options.setdefault("audit", derived_audit(self.resource, action))
        inverse = options.get("inverse")
        if inverse is not None and not inverse.router:
            options["inverse"] = replace(inverse, router=self.name)
        return self._declare("write", action, summary, options)

    def _declare(
        self, side_effects: SideEffects, action: str, summary: str, options: ActionOptions
    ) -> Callable[[F], F]:
        name = f"{self.name}.{action}"

        def register(handler: F) -> F:
            params = list(inspect.signature(handler).parameters)
            if len(params) != 2:
                raise TypeError(f"{name}: a handler takes (ctx, args)")
            hints = get_type_hints(handler)
            args_model = hints.get(params[1])
            if not (isinstance(args_model, type) and issubclass(args_model, BaseModel)):
                raise TypeError(f"{name}: annotate args with a pydantic model")
            inverse = options.get("inverse")
            returns = hints.get("return")
            if inverse is not None and not (
                isinstance(returns, type) and issubclass(returns, inverse.output)
            ):
                raise TypeError(f"{name}: return {inverse.output.__name__}, its inverse reads it")
            if action in self.specs:
                raise ValueError(f"tool {name} is declared twice")
            self.specs[action] = ToolSpec(
                router=self.name,
                action=action,
                summary=summary,
                args_model=args_model,
                handler=handler,
                side_effects=side_effects,
                options={**self.defaults, **options},
            )
            return handler

        return register
