"""forms router through the runner: every action's happy path, RBAC, the compliance org-type
gate, foreign ids, bad arguments, confirmation cards and undo."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from spotter.auth import Caller
from spotter.db import Database
from spotter.tools.calls import ToolOutcome
from spotter.tools.catalog import load_catalog
from spotter.tools.errors import DomainError
from spotter.tools.invoke import invoke_tool, preview_tool
from tests.support.callers import caller_for
from tests.support.forms import TERMS, WAIVER_FIELDS, published_waiver, set_org_type, sign
from tests.support.world import Org

ROUTER = "forms"
NOTES = {"key": "notes", "label": "Anything else?", "type": "long_text"}


async def _call(db: Database, caller: Caller, action: str, args: dict[str, Any]) -> ToolOutcome:
    return await invoke_tool(db, caller, ROUTER, {"action": action, "args": args})


async def _ok(db: Database, caller: Caller, action: str, args: dict[str, Any]) -> Any:
    outcome = await _call(db, caller, action, args)
    assert outcome.ok, outcome.error
    return outcome.output


def _code(outcome: ToolOutcome) -> str:
    assert outcome.error is not None, outcome.output
    return str(outcome.error.code)


async def _undo(db: Database, caller: Caller, action: str, output: dict[str, Any]) -> Any:
    inverse = load_catalog().specs[f"{ROUTER}.{action}"].inverse
    assert inverse is not None
    return await _ok(db, caller, inverse.action, inverse.build_input(output))


async def _waiver_draft(db: Database, owner: Caller, name: str = "Waiver") -> str:
    out = await _ok(db, owner, "create", {"kind": "waiver", "name": name, "body": TERMS,
                                          "fields": WAIVER_FIELDS})  # fmt: skip
    return str(out["id"])


async def _keys(db: Database, caller: Caller, form_id: str) -> list[str]:
    out = await _ok(db, caller, "get", {"formId": form_id})
    return [f["key"] for f in out["shown"]["fields"]]


async def test_create_then_list_shows_a_draft(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    await _waiver_draft(db, owner)
    listed = await _ok(db, owner, "list", {})
    assert [(f["name"], f["draftVersion"], f["publishedVersion"]) for f in listed["forms"]] == [
        ("Waiver", 1, None)
    ]


async def test_get_shows_a_given_version(db: Database, org: Org) -> None:
    form_id = str(await published_waiver(db, org))
    owner = await caller_for(db, org, "owner")
    await _ok(db, owner, "update", {"formId": form_id, "title": "Waiver 2027"})
    first = await _ok(db, owner, "get", {"formId": form_id, "version": 1})
    latest = await _ok(db, owner, "get", {"formId": form_id})
    assert (first["shown"]["title"], latest["shown"]["title"]) == (
        "Liability waiver",
        "Waiver 2027",
    )


async def test_versions_lists_the_history_with_submission_counts(db: Database, org: Org) -> None:
    form_id = await published_waiver(db, org)
    await sign(db, org, form_id, org["member"].membership_id)
    owner = await caller_for(db, org, "owner")
    await _ok(db, owner, "add_field", {"formId": str(form_id), "field": NOTES})
    out = await _ok(db, owner, "versions", {"formId": str(form_id)})
    assert [(v["version"], v["status"], v["submissions"]) for v in out["versions"]] == [
        (2, "draft", 0),
        (1, "published", 1),
    ]


async def test_lint_lists_the_drafts_problems(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    out = await _ok(db, owner, "create", {"kind": "waiver", "name": "Bare"})
    report = await _ok(db, owner, "lint", {"formId": out["id"]})
    assert report["publishable"] is False
    assert [p["code"] for p in report["problems"]] == ["no_fields", "missing_signature",
                                                       "missing_terms"]  # fmt: skip


async def test_publish_refuses_a_draft_that_fails_the_lint(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    out = await _ok(db, owner, "create", {"kind": "waiver", "name": "Bare"})
    outcome = await _call(db, owner, "publish", {"formId": out["id"]})
    assert _code(outcome) == "form_lint_failed"
    assert outcome.error is not None and outcome.error.details["problems"]


async def test_publish_makes_the_draft_the_version_members_sign(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    form_id = await _waiver_draft(db, owner)
    out = await _ok(db, owner, "publish", {"formId": form_id})
    assert (out["publishedVersion"], out["draftVersion"]) == (1, None)


async def test_update_renames_and_requires_the_form(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    form_id = await _waiver_draft(db, owner)
    out = await _ok(db, owner, "update", {"formId": form_id, "name": "Release", "required": True})
    assert (out["name"], out["required"]) == ("Release", True)


async def test_field_actions_edit_the_draft(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    form_id = await _waiver_draft(db, owner)
    await _ok(db, owner, "add_field", {"formId": form_id, "field": NOTES, "position": 0})
    await _ok(db, owner, "move_field", {"formId": form_id, "key": "notes", "position": 3})
    await _ok(db, owner, "remove_field", {"formId": form_id, "key": "injuries"})
    replaced = await _ok(db, owner, "update_field", {"formId": form_id, "field": {
        "key": "notes", "label": "Goals", "type": "single_choice", "required": True,
        "options": ["Strength", "Health"]}})  # fmt: skip
    assert [f["key"] for f in replaced["fields"]] == ["emergency_contact", "signature", "notes"]
    assert replaced["fields"][2]["options"] == ["Strength", "Health"]


async def test_a_field_key_that_is_not_snake_case_is_invalid(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    form_id = await _waiver_draft(db, owner)
    bad = {**NOTES, "key": "Notes Field"}
    assert _code(await _call(db, owner, "add_field", {"formId": form_id, "field": bad})) == (
        "invalid_args"
    )


async def test_discard_draft_returns_to_the_published_version(db: Database, org: Org) -> None:
    form_id = str(await published_waiver(db, org))
    owner = await caller_for(db, org, "owner")
    await _ok(db, owner, "add_field", {"formId": form_id, "field": NOTES})
    out = await _ok(db, owner, "discard_draft", {"formId": form_id})
    assert out["draftVersion"] is None
    assert "notes" not in await _keys(db, owner, form_id)


async def test_duplicate_copies_the_fields_into_a_new_draft_form(db: Database, org: Org) -> None:
    form_id = str(await published_waiver(db, org))
    owner = await caller_for(db, org, "owner")
    copy = await _ok(db, owner, "duplicate", {"formId": form_id, "name": "Kids waiver"})
    assert (copy["draftVersion"], copy["publishedVersion"]) == (1, None)
    assert await _keys(db, owner, copy["id"]) == [f["key"] for f in WAIVER_FIELDS]


async def test_archive_hides_every_version_and_restore_brings_it_back(
    db: Database, org: Org
) -> None:
    form_id = str(await published_waiver(db, org))
    owner = await caller_for(db, org, "owner")
    await _ok(db, owner, "archive", {"formId": form_id})
    assert (await _ok(db, owner, "list", {}))["forms"] == []
    assert _code(await _call(db, owner, "update", {"formId": form_id, "title": "x"})) == "conflict"
    await _ok(db, owner, "restore", {"formId": form_id})
    assert len((await _ok(db, owner, "list", {}))["forms"]) == 1


async def test_delete_is_refused_when_the_form_has_submissions(db: Database, org: Org) -> None:
    form_id = await published_waiver(db, org)
    await sign(db, org, form_id, org["member"].membership_id)
    owner = await caller_for(db, org, "owner")
    assert _code(await _call(db, owner, "delete", {"formId": str(form_id)})) == (
        "form_has_submissions"
    )


async def test_delete_removes_a_form_without_submissions(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    form_id = await _waiver_draft(db, owner)
    await _ok(db, owner, "delete", {"formId": form_id})
    assert _code(await _call(db, owner, "get", {"formId": form_id})) == "not_found"


async def test_submissions_filter_by_form_member_and_local_dates(db: Database, org: Org) -> None:
    form_id = await published_waiver(db, org)
    await sign(db, org, form_id, org["member"].membership_id)
    other = await published_waiver(db, org, name="Second waiver")
    await sign(db, org, other, org["member"].membership_id)
    coach = await caller_for(db, org, "coach")
    of_form = await _ok(db, coach, "submissions", {"formId": str(form_id)})
    mine = await _ok(db, coach, "submissions", {"memberId": str(org["member"].membership_id)})
    before = await _ok(db, coach, "submissions", {"range": {"end": "2020-01-01"}})
    assert [s["formName"] for s in of_form["submissions"]] == ["Liability waiver"]
    assert len(mine["submissions"]) == 2 and before["submissions"] == []


async def test_submission_reads_the_answers_with_labels(db: Database, org: Org) -> None:
    form_id = await published_waiver(db, org)
    submission_id = await sign(db, org, form_id, org["member"].membership_id)
    coach = await caller_for(db, org, "coach")
    out = await _ok(db, coach, "submission", {"submissionId": str(submission_id)})
    contact = {"field": "emergency_contact", "label": "Emergency contact"}
    assert contact | {"value": "Avi 050-5550101", "health": False} in out["answers"]


async def test_unsigned_lists_members_missing_the_published_version(db: Database, org: Org) -> None:
    form_id = await published_waiver(db, org)
    coach = await caller_for(db, org, "coach")
    out = await _ok(db, coach, "unsigned", {"formId": str(form_id)})
    assert [m["memberId"] for m in out["unsigned"]] == [str(org["member"].membership_id)]


WRITES = ["create", "update", "add_field", "update_field", "remove_field", "move_field",
          "publish", "discard_draft", "duplicate", "archive", "restore", "delete"]  # fmt: skip


@pytest.mark.parametrize("action", WRITES)
async def test_a_coach_may_not_change_forms(db: Database, org: Org, action: str) -> None:
    coach = await caller_for(db, org, "coach")
    assert _code(await _call(db, coach, action, {})) == "forbidden"


async def test_members_have_no_forms_tool(db: Database, org: Org) -> None:
    member = await caller_for(db, org, "member")
    assert _code(await _call(db, member, "list", {})) == "forbidden"


async def test_an_org_type_without_forms_is_refused(db: Database, org: Org, clean_db: str) -> None:
    set_org_type(clean_db, org, "league")
    owner = await caller_for(db, org, "owner")
    assert _code(await _call(db, owner, "list", {})) == "feature_unavailable"


async def test_an_online_org_may_not_create_a_health_form(
    db: Database, org: Org, clean_db: str
) -> None:
    set_org_type(clean_db, org, "online")
    owner = await caller_for(db, org, "owner")
    outcome = await _call(db, owner, "create", {"kind": "health", "name": "PAR-Q"})
    assert _code(outcome) == "form_kind_not_allowed"


def _by_form(form_id: str) -> dict[str, dict[str, Any]]:
    return {
        "get": {"formId": form_id},
        "versions": {"formId": form_id},
        "lint": {"formId": form_id},
        "update": {"formId": form_id, "title": "x"},
        "add_field": {"formId": form_id, "field": NOTES},
        "update_field": {"formId": form_id, "field": NOTES},
        "remove_field": {"formId": form_id, "key": "notes"},
        "move_field": {"formId": form_id, "key": "notes", "position": 0},
        "publish": {"formId": form_id},
        "discard_draft": {"formId": form_id},
        "duplicate": {"formId": form_id, "name": "Copy"},
        "archive": {"formId": form_id},
        "restore": {"formId": form_id},
        "delete": {"formId": form_id},
        "submissions": {"formId": form_id},
        "unsigned": {"formId": form_id},
        "submission": {"submissionId": form_id},
    }


@pytest.mark.parametrize("action", sorted(_by_form("x")))
async def test_another_orgs_form_is_not_found(
    db: Database, org: Org, other_org: Org, action: str
) -> None:
    theirs = await published_waiver(db, other_org)
    submission = await sign(db, other_org, theirs, other_org["member"].membership_id)
    owner = await caller_for(db, org, "owner")
    foreign = str(submission if action == "submission" else theirs)
    for form_id in (foreign, str(uuid.uuid4())):
        assert _code(await _call(db, owner, action, _by_form(form_id)[action])) == "not_found"


@pytest.mark.parametrize(
    ("action", "args"),
    [
        ("create", {"kind": "contract", "name": "X"}),
        ("create", {"kind": "waiver"}),
        ("add_field", {"formId": str(uuid.UUID(int=1)), "field": {**NOTES, "type": "photo"}}),
        ("move_field", {"formId": str(uuid.UUID(int=1)), "key": "notes", "position": -1}),
        ("get", {"formId": "not-a-uuid"}),
        ("list", {"signingLink": True}),
    ],
)
async def test_bad_arguments_are_invalid_args(
    db: Database, org: Org, action: str, args: dict[str, Any]
) -> None:
    owner = await caller_for(db, org, "owner")
    assert _code(await _call(db, owner, action, args)) == "invalid_args"


def test_no_action_signs_for_a_member_or_mints_a_signing_link() -> None:
    actions = {s.action for s in load_catalog().specs.values() if s.router == ROUTER}
    assert len(actions) == 19
    assert not {a for a in actions if "sign" in a and a != "unsigned"}
    assert not {a for a in actions if "link" in a}


async def test_publish_card_names_the_form_versions_and_members(db: Database, org: Org) -> None:
    form_id = str(await published_waiver(db, org))
    owner = await caller_for(db, org, "owner")
    await _ok(db, owner, "add_field", {"formId": form_id, "field": NOTES})
    card = await preview_tool(db, owner, ROUTER, {"action": "publish", "args": {"formId": form_id}})
    assert card.target == "Liability waiver" and card.affected_count == 1
    assert card.changes == [{"field": "version", "old": 1, "new": 2}]
    assert "previous_version_superseded" in card.consequences


@pytest.mark.parametrize("action", ["discard_draft", "archive", "delete"])
async def test_destructive_cards_name_the_form(db: Database, org: Org, action: str) -> None:
    owner = await caller_for(db, org, "owner")
    form_id = await _waiver_draft(db, owner, "Release")
    card = await preview_tool(db, owner, ROUTER, {"action": action, "args": {"formId": form_id}})
    assert card.target == "Release"
    assert card.consequences


async def test_the_delete_card_of_a_signed_form_is_refused(db: Database, org: Org) -> None:
    form_id = await published_waiver(db, org)
    await sign(db, org, form_id, org["member"].membership_id)
    owner = await caller_for(db, org, "owner")
    with pytest.raises(DomainError) as info:
        await preview_tool(
            db, owner, ROUTER, {"action": "delete", "args": {"formId": str(form_id)}}
        )
    assert info.value.code == "form_has_submissions"


async def test_undo_create_deletes_the_form(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    out = await _ok(db, owner, "create", {"kind": "intake", "name": "Intake"})
    await _undo(db, owner, "create", out)
    assert (await _ok(db, owner, "list", {}))["forms"] == []


async def test_undo_duplicate_deletes_the_copy(db: Database, org: Org) -> None:
    form_id = str(await published_waiver(db, org))
    owner = await caller_for(db, org, "owner")
    copy = await _ok(db, owner, "duplicate", {"formId": form_id, "name": "Copy"})
    await _undo(db, owner, "duplicate", copy)
    assert [f["name"] for f in (await _ok(db, owner, "list", {}))["forms"]] == ["Liability waiver"]


async def test_undo_add_field_removes_it(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    form_id = await _waiver_draft(db, owner)
    out = await _ok(db, owner, "add_field", {"formId": form_id, "field": NOTES})
    await _undo(db, owner, "add_field", out)
    assert "notes" not in await _keys(db, owner, form_id)


async def test_undo_remove_field_puts_it_back_where_it_was(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    form_id = await _waiver_draft(db, owner)
    out = await _ok(db, owner, "remove_field", {"formId": form_id, "key": "injuries"})
    await _undo(db, owner, "remove_field", out)
    assert await _keys(db, owner, form_id) == [f["key"] for f in WAIVER_FIELDS]


async def test_undo_move_field_moves_it_back(db: Database, org: Org) -> None:
    owner = await caller_for(db, org, "owner")
    form_id = await _waiver_draft(db, owner)
    out = await _ok(db, owner, "move_field", {"formId": form_id, "key": "signature", "position": 0})
    await _undo(db, owner, "move_field", out)
    assert await _keys(db, owner, form_id) == [f["key"] for f in WAIVER_FIELDS]


async def test_undo_archive_restores_and_undo_restore_archives(db: Database, org: Org) -> None:
    form_id = str(await published_waiver(db, org))
    owner = await caller_for(db, org, "owner")
    archived = await _ok(db, owner, "archive", {"formId": form_id})
    restored = await _undo(db, owner, "archive", archived)
    assert restored["status"] == "active"
    again = await _undo(db, owner, "restore", restored)
    assert again["status"] == "archived"
