"""Forms on real Postgres: versions, publish lint, family-wide archive, the delete guard,
submissions, the compliance org-type gate and the erasure step."""

from __future__ import annotations

import uuid
from uuid import UUID

import psycopg
import pytest

from spotter.db import Database
from spotter.domain import forms
from spotter.domain.errors import DomainError
from tests.support.forms import (
    TERMS,
    WAIVER_FIELDS,
    published_waiver,
    scope_of,
    set_org_type,
    sign,
)
from tests.support.world import Org, add_person

NOTES = {"key": "notes", "label": "Anything else?", "type": "long_text", "required": False}


async def _new_waiver(db: Database, org: Org, **overrides: object) -> UUID:
    args: dict[str, object] = {"kind": "waiver", "name": "Waiver", "body": TERMS,
                               "fields": WAIVER_FIELDS}  # fmt: skip
    args.update(overrides)
    async with scope_of(db, org) as scope:
        form = await forms.create_form(scope, **args)  # type: ignore[arg-type]
    return UUID(str(form["id"]))


async def test_a_new_form_is_a_draft_version_one(db: Database, org: Org) -> None:
    form_id = await _new_waiver(db, org)
    async with scope_of(db, org) as scope:
        form = await forms.get_form(scope, form_id)
    assert (form["draft_version"], form["published_version"]) == (1, None)


async def test_a_second_active_form_with_the_same_name_is_a_conflict(
    db: Database, org: Org
) -> None:
    await _new_waiver(db, org, name="Waiver")
    with pytest.raises(DomainError) as info:
        await _new_waiver(db, org, name="waiver")
    assert info.value.code == "conflict"


async def test_publish_refuses_a_draft_that_fails_the_lint_and_changes_nothing(
    db: Database, org: Org
) -> None:
    form_id = await _new_waiver(db, org, body="", fields=[NOTES])
    async with scope_of(db, org) as scope:
        with pytest.raises(DomainError) as info:
            await forms.publish(scope, form_id, published_by=None)
        form = await forms.get_form(scope, form_id)
    assert info.value.code == "form_lint_failed"
    codes = [p["code"] for p in info.value.details["problems"]]
    assert codes == ["missing_signature", "missing_terms"]
    assert (form["draft_version"], form["published_version"]) == (1, None)


async def test_editing_a_published_form_opens_the_next_version_and_keeps_the_signed_one(
    db: Database, org: Org
) -> None:
    form_id = await published_waiver(db, org)
    async with scope_of(db, org) as scope:
        await forms.update_form(scope, form_id, title="Waiver 2027")
        draft = await forms.get_version(scope, form_id)
        signed = await forms.get_version(scope, form_id, 1)
    assert (draft["version"], draft["status"], draft["title"]) == (2, "draft", "Waiver 2027")
    assert (signed["status"], signed["title"]) == ("published", "Liability waiver")
    assert draft["fields"] == signed["fields"]


async def test_publishing_the_next_version_supersedes_the_previous(db: Database, org: Org) -> None:
    form_id = await published_waiver(db, org)
    async with scope_of(db, org) as scope:
        await forms.add_field(scope, form_id, NOTES)
        await forms.publish(scope, form_id, published_by=None)
        versions = await forms.list_versions(scope, form_id)
    assert [(v["version"], v["status"]) for v in versions] == [(2, "published"), (1, "superseded")]


async def test_fields_can_be_added_at_a_position_moved_replaced_and_removed(
    db: Database, org: Org
) -> None:
    form_id = await _new_waiver(db, org)
    async with scope_of(db, org) as scope:
        await forms.add_field(scope, form_id, NOTES, position=0)
        await forms.move_field(scope, form_id, "notes", 99)
        await forms.replace_field(scope, form_id, {**WAIVER_FIELDS[1], "label": "Injuries?"})
        draft = await forms.remove_field(scope, form_id, "emergency_contact")
    assert [f["key"] for f in draft["fields"]] == ["injuries", "signature", "notes"]
    assert draft["fields"][0]["label"] == "Injuries?"


async def test_adding_a_field_whose_key_exists_is_a_conflict(db: Database, org: Org) -> None:
    form_id = await _new_waiver(db, org)
    async with scope_of(db, org) as scope:
        with pytest.raises(DomainError) as info:
            await forms.add_field(scope, form_id, WAIVER_FIELDS[0])
    assert info.value.code == "conflict"


async def test_discarding_a_draft_leaves_the_published_version(db: Database, org: Org) -> None:
    form_id = await published_waiver(db, org)
    async with scope_of(db, org) as scope:
        await forms.update_form(scope, form_id, body=TERMS + " Changed.")
        form = await forms.discard_draft(scope, form_id)
        current = await forms.get_version(scope, form_id)
    assert (form["draft_version"], current["version"], current["body"]) == (None, 1, TERMS)


async def test_a_never_published_form_cannot_discard_its_only_version(
    db: Database, org: Org
) -> None:
    form_id = await _new_waiver(db, org)
    async with scope_of(db, org) as scope:
        with pytest.raises(DomainError) as info:
            await forms.discard_draft(scope, form_id)
    assert info.value.code == "conflict"


async def test_archive_is_family_wide_and_an_archived_form_cannot_be_edited(
    db: Database, org: Org
) -> None:
    form_id = await published_waiver(db, org)
    async with scope_of(db, org) as scope:
        await forms.update_form(scope, form_id, title="Next")
        await forms.set_archived(scope, form_id, True)
        listed = await forms.list_forms(scope)
        with pytest.raises(DomainError) as info:
            await forms.add_field(scope, form_id, NOTES)
    assert listed == []
    assert info.value.code == "conflict"


async def test_restore_refuses_when_an_active_form_took_the_name(db: Database, org: Org) -> None:
    form_id = await published_waiver(db, org, name="Waiver")
    async with scope_of(db, org) as scope:
        await forms.set_archived(scope, form_id, True)
    await _new_waiver(db, org, name="Waiver")
    async with scope_of(db, org) as scope:
        with pytest.raises(DomainError) as info:
            await forms.set_archived(scope, form_id, False)
    assert info.value.code == "conflict"


async def test_delete_is_refused_while_the_form_has_submissions(db: Database, org: Org) -> None:
    form_id = await published_waiver(db, org)
    await sign(db, org, form_id, org["member"].membership_id)
    async with scope_of(db, org) as scope:
        with pytest.raises(DomainError) as info:
            await forms.delete_form(scope, form_id)
        still = await forms.get_form(scope, form_id)
    assert info.value.code == "form_has_submissions"
    assert info.value.details == {"submissions": 1}
    assert still["status"] == "active"


async def test_delete_removes_a_form_without_submissions_and_its_versions(
    db: Database, org: Org
) -> None:
    form_id = await published_waiver(db, org)
    async with scope_of(db, org) as scope:
        await forms.update_form(scope, form_id, title="Next")
        await forms.delete_form(scope, form_id)
        with pytest.raises(DomainError) as info:
            await forms.get_form(scope, form_id)
        cur = await scope.conn.execute(
            "SELECT count(*) AS n FROM form_versions WHERE form_id = %s", (form_id,)
        )
        left = await cur.fetchone()
    assert info.value.code == "not_found"
    assert left is not None and left["n"] == 0


async def test_a_submission_with_a_missing_required_answer_is_refused(
    db: Database, org: Org
) -> None:
    form_id = await published_waiver(db, org)
    async with scope_of(db, org) as scope:
        with pytest.raises(DomainError) as info:
            await forms.record_submission(
                scope, form_id, org["member"].membership_id or uuid.uuid4(), {"injuries": True}
            )
    assert info.value.code == "invalid_answers"


async def test_a_submission_reads_back_with_field_labels(db: Database, org: Org) -> None:
    form_id = await published_waiver(db, org)
    submission_id = await sign(db, org, form_id, org["member"].membership_id)
    async with scope_of(db, org) as scope:
        row = await forms.get_submission(scope, submission_id)
    out = forms.submission_out(row, with_answers=True)
    assert out["version"] == 1 and out["signer"] is not None
    injuries = {"field": "injuries", "label": "Any injuries?", "value": False}
    assert injuries | {"health": True} in out["answers"]  # marked: a health answer


async def test_unsigned_lists_members_without_the_current_version(
    db: Database, org: Org, clean_db: str
) -> None:
    form_id = await published_waiver(db, org)
    signed_v1 = add_person(clean_db, org, "Saar Cohen")
    never = add_person(clean_db, org, "Maya Rosen")
    await sign(db, org, form_id, signed_v1.membership_id)
    await sign(db, org, form_id, org["member"].membership_id)
    async with scope_of(db, org) as scope:
        await forms.add_field(scope, form_id, NOTES)
        await forms.publish(scope, form_id, published_by=None)
    await sign(db, org, form_id, org["member"].membership_id)
    async with scope_of(db, org) as scope:
        status = await forms.unsigned_members(scope, form_id)
    assert status["activeMembers"] == 3
    assert [(m["memberId"], m["signedOlderVersion"]) for m in status["unsigned"]] == [
        (str(never.membership_id), False),
        (str(signed_v1.membership_id), True),
    ]


async def test_another_orgs_form_is_not_found(db: Database, org: Org, other_org: Org) -> None:
    theirs = await published_waiver(db, other_org)
    async with scope_of(db, org) as scope:
        with pytest.raises(DomainError) as info:
            await forms.get_form(scope, theirs)
    assert info.value.code == "not_found"


async def test_an_online_org_cannot_create_a_health_form(
    db: Database, org: Org, clean_db: str
) -> None:
    set_org_type(clean_db, org, "online")
    with pytest.raises(DomainError) as info:
        await _new_waiver(db, org, kind="health")
    assert info.value.code == "form_kind_not_allowed"
    assert info.value.details == {"allowed": ["intake", "waiver"]}


async def test_an_org_type_without_forms_gets_feature_unavailable(
    db: Database, org: Org, clean_db: str
) -> None:
    set_org_type(clean_db, org, "league")
    async with scope_of(db, org) as scope:
        with pytest.raises(DomainError) as info:
            await forms.list_forms(scope)
    assert info.value.code == "feature_unavailable"


async def test_erase_person_clears_every_personal_column_and_keeps_the_count(
    db: Database, org: Org, clean_db: str
) -> None:
    form_id = await published_waiver(db, org)
    await sign(db, org, form_id, org["member"].membership_id)
    async with scope_of(db, org) as scope:
        await forms.erase_person(scope, org["member"].user_id)
        form = await forms.get_form(scope, form_id)
    with psycopg.connect(clean_db) as conn:
        row = conn.execute(
            "SELECT membership_id, signer_name, signer_email, answers::text, erased_at"
            " FROM form_submissions WHERE form_id = %s",
            (form_id,),
        ).fetchone()
    assert row is not None and row[:4] == (None, None, None, "{}") and row[4] is not None
    assert form["submissions"] == 1


async def test_erase_person_leaves_other_members_submissions(
    db: Database, org: Org, clean_db: str
) -> None:
    form_id = await published_waiver(db, org)
    other = add_person(clean_db, org, "Saar Cohen")
    await sign(db, org, form_id, org["member"].membership_id)
    await sign(db, org, form_id, other.membership_id)
    async with scope_of(db, org) as scope:
        await forms.erase_person(scope, org["member"].user_id)
        left = await forms.list_submissions(scope, membership_id=other.membership_id)
    assert [r["signer_name"] for r in left] == ["Saar Cohen"]
