"""A `Router` per leaf: its name and description once, defaults for its actions, and decorators.

    programs = Router("programs", "Programs: named tracks that workouts belong to.")

    @programs.read("list", "List programs (active unless asked).")
    async def list_programs(ctx: ToolContext, args: ListArgs) -> dict[str, Any]: ...

    @programs.write("archive", "Archive a program.", confirm="destructive", target=...)
    async def archive_program(ctx: ToolContext, args: ArchiveArgs) -> ProgramOut: ...

    admin = programs.group(roles=MANAGERS, confirm="always")

    @admin.write("merge", "Merge two programs.")
    async def merge_programs(ctx: ToolContext, args: MergeArgs) -> dict[str, Any]: ...

Every keyword is a `ToolOptions` field (the one place their defaults are stated). Options given
to `Router(...)` apply to every action; a group's override them for the actions declared through
it (same router, same tool); an action's own override both.

A write is audited as `<resource>.<past tense of the action>` (`create` -> `program.created`,
`set_days` -> `program_template.days_set`, `bulk_move` -> `lead.bulk_moved`; an action's object
that names the resource is dropped: `create_stage` in resource `lead_stage` ->
`lead_stage.created`), the resource being the router's name without a trailing "s" unless a
`resource=` says otherwise; pass `audit=Audit(...)` where the label is another. The args model is
read from the handler's second parameter's type hint; an action with an inverse must return the
inverse's `output` model.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import fields, replace
from typing import Any, Concatenate, ParamSpec, TypeVar, get_type_hints

from pydantic import BaseModel

from spotter.tools.spec import Audit, SideEffects, ToolOptions, ToolSpec

F = TypeVar("F", bound=Callable[..., Any])
R = TypeVar("R")
P = ParamSpec("P")

_OPTION_FIELDS = tuple(f.name for f in fields(ToolOptions))

# Irregular past tenses (a test checks every label's verb against an English dictionary).
_PAST = {
    "set": "set",
    "send": "sent",
    "cancel": "cancelled",
    "book": "created",
    "tag": "tagged",
    "untag": "untagged",
}


def _past(verb: str) -> str:
    if verb in _PAST:
        return _PAST[verb]
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ied"
    return verb + ("d" if verb.endswith("e") else "ed")


def derived_audit(resource: str, action: str) -> Audit:
    """`create` -> `<resource>.created`; `verb_object` -> `<resource>.object_verbed`."""
    verb, _, rest = action.partition("_")
    prefix = ""
    if verb == "bulk":
        prefix, (verb, _, rest) = "bulk_", rest.partition("_")
    if rest == resource.rpartition("_")[2]:
        rest = ""
    return Audit(resource, f"{resource}.{rest + '_' if rest else ''}{prefix}{_past(verb)}")


def _named_then_options(
    _: Callable[P, ToolOptions],
) -> Callable[[Callable[..., R]], Callable[Concatenate[Any, str, str, P], R]]:
    """Type a `(self, name, text, **options)` method as taking `ToolOptions`' keywords, typed."""

    def typed(method: Callable[..., R]) -> Callable[Concatenate[Any, str, str, P], R]:
        return method

    return typed


def _options_only(
    _: Callable[P, ToolOptions],
) -> Callable[[Callable[..., R]], Callable[Concatenate[Any, P], R]]:
    """Type a `(self, **options)` method as taking `ToolOptions`' keywords, typed."""

    def typed(method: Callable[..., R]) -> Callable[Concatenate[Any, P], R]:
        return method

    return typed


class ActionGroup:
    """Declares actions on one router with shared defaults; a `Router` is its own first group."""

    def __init__(self, router: Router, defaults: ToolOptions) -> None:
        self._router = router
        self.defaults = defaults

    @_options_only(ToolOptions)
    def group(self, **defaults: Any) -> ActionGroup:
        """Actions declared through the group take these defaults over this one's."""
        return ActionGroup(self._router, replace(self.defaults, **defaults))

    @_named_then_options(ToolOptions)
    def read(self, action: str, summary: str, **options: Any) -> Callable[[F], F]:
        """Declare `handler(ctx, args)` as a read: it never changes anything."""
        declared = replace(self.defaults, **options)
        return self._declare("read", action, summary, replace(declared, idempotent=True))

    @_named_then_options(ToolOptions)
    def write(self, action: str, summary: str, **options: Any) -> Callable[[F], F]:
        """Declare `handler(ctx, args)` as a write: audited, possibly confirmed and undoable."""
        declared = replace(self.defaults, **options)
        if declared.audit is None:
            declared = replace(declared, audit=derived_audit(declared.resource, action))
        inverse = declared.inverse
        if inverse is not None and not inverse.router:
            declared = replace(declared, inverse=replace(inverse, router=self._router.name))
        return self._declare("write", action, summary, declared)

    def _declare(
        self, side_effects: SideEffects, action: str, summary: str, options: ToolOptions
    ) -> Callable[[F], F]:
        router = self._router
        name = f"{router.name}.{action}"

        def register(handler: F) -> F:
            params = list(inspect.signature(handler).parameters)
            if len(params) != 2:
                raise TypeError(f"{name}: a handler takes (ctx, args)")
            hints = get_type_hints(handler)
            args_model = hints.get(params[1])
            if not (isinstance(args_model, type) and issubclass(args_model, BaseModel)):
                raise TypeError(f"{name}: annotate args with a pydantic model")
            inverse = options.inverse
            returns = hints.get("return")
            if inverse is not None and not (
                isinstance(returns, type) and issubclass(returns, inverse.output)
            ):
                raise TypeError(f"{name}: return {inverse.output.__name__}, its inverse reads it")
            if action in router.specs:
                raise ValueError(f"tool {name} is declared twice")
            router.specs[action] = ToolSpec(
                router=router.name,
                action=action,
                summary=summary,
                args_model=args_model,
                handler=handler,
                side_effects=side_effects,
                **{key: getattr(options, key) for key in _OPTION_FIELDS},
            )
            return handler

        return register


class Router(ActionGroup):
    """One Anthropic tool: a named group of actions with shared defaults."""

    @_named_then_options(ToolOptions)
    def __init__(self, name: str, description: str, **defaults: Any) -> None:
        self.name = name
        self.description = description
        self.specs: dict[str, ToolSpec] = {}
        own = ToolOptions(resource=name.removesuffix("s"))
        super().__init__(self, replace(own, **defaults))
