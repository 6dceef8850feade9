"""What the model sees: one Anthropic tool per router, byte-stable for a role and org flags.

Each router's description states every action's summary once; its input is `{action, args}`
where `args` is one of the actions' argument schemas, each titled with its action name.
Shared sub-schemas are stated once in the router's `$defs`. Runtime validation never uses these
schemas: it uses the pydantic models they were generated from.
"""

from __future__ import annotations

import math
from typing import Any

from spotter.providers.wire_request import to_json
from spotter.tools.spec import ToolSpec

# Keys that only restate what pydantic knows or the model does not need.
_DROPPED_KEYS = frozenset({"title", "$schema"})


def compact_schema(node: Any) -> Any:
    """Drop titles and null defaults, and collapse `Optional[X]` to `X` (absence means None)."""
    if isinstance(node, list):
        return [compact_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    variants = node.get("anyOf")
    if isinstance(variants, list) and {"type": "null"} in variants:
        rest = [v for v in variants if v != {"type": "null"}]
        merged = {k: v for k, v in node.items() if k != "anyOf"}
        if len(rest) == 1:
            merged.update(rest[0])
        else:
            merged["anyOf"] = rest
        node = merged
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROPPED_KEYS or (key == "default" and value is None):
            continue
        if key in ("properties", "$defs") and isinstance(value, dict):
            out[key] = {name: compact_schema(sub) for name, sub in value.items()}
        else:
            out[key] = compact_schema(value)
    return out


def slim_json_schema(node: Any) -> Any:
    """The spec's slimming pass: drop `$schema`, and `pattern` beside `format: uuid|email`."""
    if isinstance(node, list):
        return [slim_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    drop_pattern = node.get("format") in ("uuid", "email")
    return {
        key: (slim_json_schema(value) if key not in ("properties", "$defs") else
              {name: slim_json_schema(sub) for name, sub in value.items()})
        for key, value in node.items()
        if key != "$schema" and not (key == "pattern" and drop_pattern)
    }  # fmt: skip


def _args_schema(spec: ToolSpec, shared: dict[str, Any]) -> dict[str, Any]:
    schema = spec.args_model.model_json_schema(ref_template="#/$defs/{model}")
    for name, sub in schema.pop("$defs", {}).items():
        sub = compact_schema(sub)
        if name in shared and shared[name] != sub:
            raise ValueError(f"{spec.name}: sub-schema {name} differs from another action's")
        shared[name] = sub
    compact: dict[str, Any] = compact_schema(schema)
    return {"title": spec.action, **compact}


def router_definition(router: str, description: str, specs: list[ToolSpec]) -> dict[str, Any]:
    ordered = sorted(specs, key=lambda s: s.action)
    shared: dict[str, Any] = {}
    variants = [_args_schema(spec, shared) for spec in ordered]
    lines = [description] if description else []
    lines += [f"- {spec.action}: {spec.summary}" for spec in ordered]
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": [spec.action for spec in ordered]},
            "args": {"anyOf": variants} if len(variants) > 1 else variants[0],
        },
        "required": ["action", "args"],
    }
    if shared:
        input_schema["$defs"] = dict(sorted(shared.items()))
    return {
        "name": router,
        "description": "\n".join(lines),
        "input_schema": slim_json_schema(input_schema),
    }


def build_definitions(specs: list[ToolSpec], descriptions: dict[str, str]) -> list[dict[str, Any]]:
    by_router: dict[str, list[ToolSpec]] = {}
    for spec in specs:
        by_router.setdefault(spec.router, []).append(spec)
    return [
        router_definition(router, descriptions.get(router, ""), by_router[router])
        for router in sorted(by_router)
    ]


def canonical_json(value: Any) -> str:
    """The bytes we send: key order as built, no whitespace, UTF-8 kept — the request
    encoder's own (`providers.wire_request`), so the cached tools JSON is what a call sends."""
    return to_json(value)


def estimate_tokens(text: str) -> int:
    """The project's one token estimate for text we have not sent yet: chars / 4."""
    return math.ceil(len(text) / 4)


def definition_stats(definitions: list[dict[str, Any]]) -> dict[str, int]:
    """Size of the definitions as sent: chars, and Claude tokens for the loop model (ctok)."""
    from spotter.tools.token_count import claude_tokens

    text = canonical_json(definitions)
    actions = sum(len(d["input_schema"]["properties"]["action"]["enum"]) for d in definitions)
    return {
        "routers": len(definitions),
        "actions": actions,
        "chars": len(text),
        "tokens": claude_tokens(text),
    }
