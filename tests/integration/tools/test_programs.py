"""programs router: list, create (undo = archive), update, archive (destructive, previewed)."""

from __future__ import annotations

import uuid

import pytest

from spotter.db import Database
from spotter.tools.errors import DomainError
from spotter.tools.invoke import invoke_tool, preview_tool
from tests.support.callers import caller_for
from tests.support.world import Org


async def test_create_then_list_shows_the_program(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    created = await invoke_tool(
        db, owner, "programs", {"action": "create", "args": {"name": "Engine"}}
    )
    listed = await invoke_tool(db, owner, "programs", {"action": "list", "args": {}})
    assert [p["name"] for p in listed.output["programs"]] == ["Engine"]
    assert created.output["status"] == "active"


async def test_duplicate_name_is_conflict(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    await invoke_tool(db, owner, "programs", {"action": "create", "args": {"name": "Engine"}})
    again = await invoke_tool(
        db, owner, "programs", {"action": "create", "args": {"name": "engine"}}
    )
    assert again.error is not None and again.error.code == "conflict"


async def test_foreign_org_program_is_not_found(db: Database, org: Org, other_org: Org) -> None:
    theirs = await invoke_tool(
        db,
        await caller_for(db, other_org, "owner"),
        "programs",
        {"action": "create", "args": {"name": "Theirs"}},
    )
    owner = await caller_for(db, org, "owner")
    for program_id in (theirs.output["id"], str(uuid.uuid4())):
        outcome = await invoke_tool(
            db,
            owner,
            "programs",
            {"action": "update", "args": {"programId": program_id, "name": "Mine"}},
        )
        assert outcome.error is not None and outcome.error.code == "not_found"


async def test_archive_preview_names_the_program_and_never_an_id(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    created = await invoke_tool(
        db, owner, "programs", {"action": "create", "args": {"name": "Engine"}}
    )
    card = await preview_tool(
        db, owner, "programs", {"action": "archive", "args": {"programId": created.output["id"]}}
    )
    assert card.target == "Engine"
    assert card.affected_count == 0
    assert "program_hidden_from_schedule" in card.consequences
    assert card.arguments == [{"field": "programId", "value": created.output["id"]}]


async def test_archive_preview_of_foreign_program_is_not_found(
    db: Database, org: Org, other_org: Org
) -> None:
    theirs = await invoke_tool(
        db,
        await caller_for(db, other_org, "owner"),
        "programs",
        {"action": "create", "args": {"name": "Theirs"}},
    )
    owner = await caller_for(db, org, "owner")
    with pytest.raises(DomainError) as info:
        await preview_tool(
            db, owner, "programs", {"action": "archive", "args": {"programId": theirs.output["id"]}}
        )
    assert info.value.code == "not_found"
