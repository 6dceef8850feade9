"""Spec "Tool definition size": one tool per router, sorted, slim, byte-stable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any
from uuid import UUID

import pytest
from pydantic import BaseModel

from spotter.tools.args import Args
from spotter.tools.catalog import ToolCatalog
from spotter.tools.context import ToolContext
from spotter.tools.definitions import (
    build_definitions,
    canonical_json,
    definition_stats,
    slim_json_schema,
)
from spotter.tools.router import Router
from spotter.tools.token_count import claude_tokens


class Place(Args):
    room: str
    floor: int | None = None


class BookArgs(Args):
    session_id: UUID
    where: Place | None = None


class ListArgs(Args):
    query: str | None = None
    where: Place | None = None


class A(BaseModel):
    pass


def _catalog() -> ToolCatalog:
    zeta = Router("zeta", "Zeta things.")
    alpha = Router("alpha", "")

    @zeta.read("list", "List zetas.")
    async def zeta_list(ctx: ToolContext, args: ListArgs) -> dict[str, Any]:
        return {}

    @alpha.read("book", "Book one.")
    async def alpha_book(ctx: ToolContext, args: BookArgs) -> dict[str, Any]:
        return {}

    @alpha.read("apply", "Apply one.")
    async def alpha_apply(ctx: ToolContext, args: ListArgs) -> dict[str, Any]:
        return {}

    return ToolCatalog([zeta, alpha])


def _defs() -> list[dict[str, Any]]:
    catalog = _catalog()
    return build_definitions(list(catalog.specs.values()), catalog.router_descriptions)


def test_one_tool_per_router_sorted_by_name() -> None:
    assert [d["name"] for d in _defs()] == ["alpha", "zeta"]


def test_router_description_states_each_action_summary_once_in_order() -> None:
    alpha = _defs()[0]
    assert alpha["description"] == "- apply: Apply one.\n- book: Book one."
    assert alpha["input_schema"]["properties"]["action"]["enum"] == ["apply", "book"]


def test_per_action_schemas_carry_only_the_action_as_title() -> None:
    variants = _defs()[0]["input_schema"]["properties"]["args"]["anyOf"]
    assert [v["title"] for v in variants] == ["apply", "book"]
    text = canonical_json(variants)
    assert '"title":"Query"' not in text and "BookArgs" not in text


def test_shared_sub_schemas_are_stated_once() -> None:
    alpha = _defs()[0]
    assert list(alpha["input_schema"]["$defs"]) == ["Place"]
    assert canonical_json(alpha).count('"room":') == 1


def test_optional_fields_drop_null_variants_and_null_defaults() -> None:
    apply = _defs()[0]["input_schema"]["properties"]["args"]["anyOf"][0]
    assert apply["properties"]["query"] == {"type": "string"}


def test_slimming_drops_schema_and_pattern_beside_uuid_or_email_only() -> None:
    schema = {
        "$schema": "x",
        "properties": {
            "id": {"type": "string", "format": "uuid", "pattern": "^[0-9a-f-]+$"},
            "mail": {"type": "string", "format": "email", "pattern": ".+@.+"},
            "code": {"type": "string", "pattern": "^[A-Z]{3}$", "description": "kept"},
        },
    }
    assert slim_json_schema(schema) == {
        "properties": {
            "id": {"type": "string", "format": "uuid"},
            "mail": {"type": "string", "format": "email"},
            "code": {"type": "string", "pattern": "^[A-Z]{3}$", "description": "kept"},
        }
    }


# Every surface the model (or an MCP client) is sent, built from the real catalog, one per line.
_SURFACES = """
import json
from spotter.mcp.catalog import build_catalog
from spotter.tools.catalog import load_catalog
from spotter.tools.registry import ToolRegistry

out = {}
for role in ("owner", "admin", "coach", "member"):
    for day_grain in (False, True):
        registry = ToolRegistry(load_catalog(), role, day_grain=day_grain)
        key = f"{role}/day_grain={day_grain}"
        out[key] = registry.definitions_json
        out[key + "/quick"] = registry.quick_definitions_json
        out[key + "/mcp"] = "".join(t.model_dump_json() for t in build_catalog(registry).tools)
print(json.dumps(out))
"""


def _surfaces(hash_seed: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run(
        [sys.executable, "-c", _SURFACES], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    surfaces: dict[str, str] = json.loads(done.stdout)
    return surfaces


def test_definitions_are_byte_stable_across_processes_with_other_hash_seeds() -> None:
    """Set and dict-of-hash order differ between these two processes; the bytes must not."""
    first, second = _surfaces("1"), _surfaces("2")
    assert len(first) == 24
    assert all(first[f"{role}/day_grain=True"] != "[]" for role in ("owner", "admin", "coach"))
    changed = [key for key in first if first[key] != second[key]]
    assert not changed, f"differ between processes: {changed}"


def test_stats_count_routers_actions_chars_and_tokens() -> None:
    stats = definition_stats(_defs())
    assert stats["routers"] == 2
    assert stats["actions"] == 3
    assert stats["tokens"] == claude_tokens(canonical_json(_defs()))


def test_a_handler_without_a_pydantic_args_model_is_refused() -> None:
    x = Router("x", "")
    with pytest.raises(TypeError, match="pydantic"):

        @x.read("y", "s")
        async def bad(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
            return {}


def test_declaring_the_same_action_twice_is_refused() -> None:
    x = Router("x", "")

    @x.read("y", "s")
    async def one(ctx: ToolContext, args: A) -> dict[str, Any]:
        return {}

    with pytest.raises(ValueError, match="twice"):

        @x.read("y", "s")
        async def two(ctx: ToolContext, args: A) -> dict[str, Any]:
            return {}
