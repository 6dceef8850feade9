"""automations through the runner: templates checked, activation confirmed, the test send
mails only the caller; owner/admin only; the email_automations tier gate on every action."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

from spotter.auth import Caller
from spotter.db import Database
from spotter.tools.catalog import load_catalog
from spotter.tools.invoke import preview_tool
from tests.support.callers import caller_for
from tests.support.schedule import call, fails, ok, undo
from tests.support.world import Org, create_org

R = "automations"
WELCOME = {
    "name": "Welcome",
    "trigger": "member_joined",
    "delayHours": 2,
    "subject": "Welcome to {{gym_name}}, {{first_name}}!",
    "body": "Hi {{first_name}}, book your first class in the app.",
}


@pytest.fixture
def scale_org(clean_db: str) -> Org:
    return create_org(clean_db, name="Scale Box", tier="scale")


@pytest.fixture
async def owner(db: Database, scale_org: Org, clean_db: str) -> Caller:
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "UPDATE users SET full_name = 'Olivia Owner', email = 'olivia@box.example'"
            " WHERE id = %s",
            (scale_org["owner"].user_id,),
        )
    return await caller_for(db, scale_org, "owner")


async def _welcome(db: Database, owner: Caller) -> str:
    return str((await ok(db, owner, R, "create", WELCOME))["id"])


def test_every_automation_action_is_gated_and_for_owners_and_admins() -> None:
    specs = [s for s in load_catalog().specs.values() if s.router == R]
    assert len(specs) == 8
    assert {(s.feature_gate, s.roles) for s in specs} == {
        ("email_automations", frozenset({"owner", "admin"}))
    }


async def test_create_makes_a_draft_and_its_inverse_deletes_it(db: Database, owner: Caller) -> None:
    created = await call(db, owner, R, "create", WELCOME)
    assert created.ok and created.output["status"] == "draft"
    assert (await ok(db, owner, R, "list", {}))["automations"][0]["delayHours"] == 2
    assert (await undo(db, owner, R, "create", created)).ok
    assert (await ok(db, owner, R, "list", {}))["automations"] == []


async def test_an_unknown_placeholder_is_refused_with_the_allowed_ones(
    db: Database, owner: Caller
) -> None:
    outcome = await call(db, owner, R, "create", {**WELCOME, "body": "Hi {{firstname}}"})
    assert outcome.error is not None and outcome.error.code == "invalid_args"
    assert "{{firstname}}" in outcome.error.message
    assert "first_name" in outcome.error.details["allowed"]


async def test_update_changes_fields_and_its_inverse_restores_them(
    db: Database, owner: Caller
) -> None:
    automation_id = await _welcome(db, owner)
    updated = await call(
        db,
        owner,
        R,
        "update",
        {"automationId": automation_id, "delayHours": 24, "subject": "Hello {{first_name}}"},
    )
    assert updated.ok and updated.output["previous"] == {
        "delayHours": 2,
        "subject": WELCOME["subject"],
    }
    assert (await undo(db, owner, R, "update", updated)).ok
    got = await ok(db, owner, R, "get", {"automationId": automation_id})
    assert (got["delayHours"], got["subject"]) == (2, WELCOME["subject"])
    same = {"automationId": automation_id, "delayHours": 2}
    assert await fails(db, owner, R, "update", same) == "invalid_args"


async def test_activation_confirms_names_the_automation_and_undoes(
    db: Database, owner: Caller
) -> None:
    automation_id = await _welcome(db, owner)
    args = {"automationId": automation_id}
    assert load_catalog().specs["automations.activate"].confirm == "always"
    card = await preview_tool(db, owner, R, {"action": "activate", "args": args})
    assert card.target == "Welcome" and card.consequences == ["automation_emails_members"]
    assert card.changes == [{"field": "status", "old": "draft", "new": "active"}]
    activated = await call(db, owner, R, "activate", args)
    assert activated.ok
    assert await fails(db, owner, R, "activate", args) == "conflict"
    assert (await undo(db, owner, R, "activate", activated)).ok
    assert (await ok(db, owner, R, "get", args))["status"] == "inactive"
    card = await preview_tool(db, owner, R, {"action": "activate", "args": args})
    assert card.changes == [{"field": "status", "old": "inactive", "new": "active"}]


async def test_deactivation_confirms_and_stops_it(db: Database, owner: Caller) -> None:
    automation_id = await _welcome(db, owner)
    args = {"automationId": automation_id}
    await ok(db, owner, R, "activate", args)
    assert load_catalog().specs["automations.deactivate"].confirm == "always"
    card = await preview_tool(db, owner, R, {"action": "deactivate", "args": args})
    assert card.consequences == ["automation_stops"]
    await ok(db, owner, R, "deactivate", args)
    assert (await ok(db, owner, R, "list", {"status": "active"}))["automations"] == []


async def test_delete_is_destructive_and_warns_when_it_was_active(
    db: Database, owner: Caller
) -> None:
    automation_id = await _welcome(db, owner)
    args = {"automationId": automation_id}
    await ok(db, owner, R, "activate", args)
    card = await preview_tool(db, owner, R, {"action": "delete", "args": args})
    assert card.consequences == ["automation_deleted", "active_automation_stops"]
    await ok(db, owner, R, "delete", args)
    assert await fails(db, owner, R, "get", args) == "not_found"


async def test_a_test_send_renders_for_the_caller_and_mails_only_them(
    db: Database, owner: Caller, clean_db: str
) -> None:
    args = {"automationId": await _welcome(db, owner)}
    spec = load_catalog().specs["automations.test_send"]
    assert (spec.confirm, spec.external_effects) == ("always", True)
    card = await preview_tool(db, owner, R, {"action": "test_send", "args": args})
    assert card.outbound is not None and card.target == "Olivia Owner"
    assert card.outbound["subject"] == "[Test] Welcome to Scale Box, Olivia!"
    assert card.outbound["body"] == "Hi Olivia, book your first class in the app."
    sent = await ok(db, owner, R, "test_send", args)
    assert [m["to"] for m in sent["messages"]] == ["olivia@box.example"]
    with psycopg.connect(clean_db) as conn:
        rows = conn.execute("SELECT recipient_kind, source FROM outbox_messages").fetchall()
    assert rows == [("staff", "automations.test_send")]


@pytest.mark.parametrize(
    ("action", "args"),
    [("list", {}), ("create", WELCOME), ("activate", {"automationId": "AUTOMATION"}),
     ("test_send", {"automationId": "AUTOMATION"})],
)  # fmt: skip
async def test_the_tier_gate_refuses_automations_on_a_growth_org(
    db: Database, org: Org, clean_db: str, action: str, args: dict[str, Any]
) -> None:
    with psycopg.connect(clean_db) as conn:  # one automation exists from a former tier
        row = conn.execute(
            "INSERT INTO email_automations (organization_id, name, trigger, subject_template,"
            " body_template) VALUES (%s, 'Old', 'member_joined', 'S', 'B') RETURNING id",
            (org.id,),
        ).fetchone()
    assert row is not None
    owner = await caller_for(db, org, "owner")  # the default test org is on growth
    args = {k: (str(row[0]) if v == "AUTOMATION" else v) for k, v in args.items()}
    assert await fails(db, owner, R, action, args) == "feature_unavailable"


async def test_the_feature_flag_opens_automations_below_their_tier(
    db: Database, org: Org, clean_db: str
) -> None:
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "UPDATE organizations SET feature_flags = %s WHERE id = %s",
            (Jsonb({"email_automations": True}), org.id),
        )
    owner = await caller_for(db, org, "owner")
    assert (await ok(db, owner, R, "list", {}))["automations"] == []


@pytest.mark.parametrize(
    ("action", "args"),
    [("get", {}), ("activate", {}), ("test_send", {}), ("update", {"name": "X"}), ("delete", {})],
)
async def test_another_orgs_automation_is_not_found(
    db: Database, owner: Caller, clean_db: str, action: str, args: dict[str, Any]
) -> None:
    other = create_org(clean_db, name="Other Scale", tier="scale")
    theirs = await _welcome(db, await caller_for(db, other, "owner"))
    assert await fails(db, owner, R, action, {"automationId": theirs, **args}) == "not_found"


@pytest.mark.parametrize(
    "args",
    [{**WELCOME, "trigger": "birthday"}, {**WELCOME, "delayHours": -1}, {**WELCOME, "name": ""}],
)
async def test_bad_automation_arguments_are_invalid_args(
    db: Database, owner: Caller, args: dict[str, Any]
) -> None:
    assert await fails(db, owner, R, "create", args) == "invalid_args"


async def test_coaches_cannot_manage_automations(db: Database, scale_org: Org) -> None:
    coach = await caller_for(db, scale_org, "coach")
    assert await fails(db, coach, R, "list", {}) == "forbidden"
