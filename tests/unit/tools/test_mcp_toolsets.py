"""MCP toolsets: every toolset fits a client that takes 40 tools, for every role and org flag;
each names only real tools; the list is the same bytes every time; docs/mcp.md is current."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spotter.auth.caller import Role
from spotter.mcp.catalog import build_catalog, catalog_for
from spotter.mcp.report import render_toolsets_table, with_table
from spotter.mcp.toolsets import MAX_TOOLS, TOOLSETS
from spotter.tools.registry import registry_for

ROLES: tuple[Role, ...] = ("owner", "admin", "coach")
DOC = Path(__file__).resolve().parents[3] / "docs" / "mcp.md"


@pytest.mark.parametrize("toolset", sorted(TOOLSETS))
def test_every_toolset_holds_at_most_40_tools_for_every_role_and_org(toolset: str) -> None:
    for role in ROLES:
        for day_grain in (False, True):
            for forms in (False, True):
                tools = catalog_for(role, day_grain, forms, toolset).tools
                assert len(tools) <= MAX_TOOLS, (toolset, role, day_grain, forms, len(tools))
                # an org that keeps no forms has no forms tools; every other toolset has some
                assert tools or (toolset == "forms" and not forms), (toolset, role, day_grain)


def test_every_toolset_names_routers_and_reads_that_exist() -> None:
    specs = registry_for("owner", True, True).specs
    routers = {s.router for s in specs}
    reads = {s.action for s in specs if s.router == "read"}
    for toolset in TOOLSETS.values():
        assert toolset.routers <= routers, toolset.name
        assert toolset.reads <= reads, toolset.name


def test_a_toolset_is_a_subset_of_the_full_list() -> None:
    full = {t.name for t in catalog_for("owner", False, True).tools}
    for name in TOOLSETS:
        assert {t.name for t in catalog_for("owner", False, True, name).tools} <= full


@pytest.mark.parametrize("toolset", [None, *sorted(TOOLSETS)])
def test_tools_list_is_byte_stable_per_role_and_toolset(toolset: str | None) -> None:
    for role in ROLES:
        built = [
            json.dumps([t.model_dump(mode="json", by_alias=True) for t in c.tools])
            for c in (
                catalog_for(role, False, True, toolset),
                build_catalog(registry_for(role, False, True), toolset),
            )
        ]
        assert built[0] == built[1]


def test_a_read_only_token_lists_no_writes() -> None:
    catalog = catalog_for("owner", False, True, "schedule", writes=False)
    assert catalog.tools and all(s.side_effects == "read" for s in catalog.specs.values())
    assert "spotter_undo" not in {t.name for t in catalog.tools}


def test_the_toolsets_table_in_docs_is_current() -> None:
    document = DOC.read_text()
    assert render_toolsets_table() in document, "docs/mcp.md is stale: run `spotter mcp-doc`"
    assert with_table(document) == document
