"""domain.leads and domain.lead_pipelines against real Postgres, on the app role (RLS on)."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any
from uuid import UUID

import psycopg
import pytest

from spotter.domain import lead_pipelines as pipelines
from spotter.domain import leads
from spotter.domain.errors import DomainError
from tests.support.world import Org

Make = Callable[..., Awaitable[dict[str, Any]]]


def _contact(first: str = "Noa", email: str | None = "noa@example.com") -> dict[str, str | None]:
    return {"first_name": first, "last_name": "Bar", "email": email, "phone": None, "source": "web"}


async def _lead(scope_of: Any, org: Org, **kw: Any) -> dict[str, Any]:
    async with scope_of(org) as scope:
        return await leads.create_lead(
            scope,
            org["owner"].user_id,
            contact=_contact(**kw),
            pipeline_id=None,
            stage_id=None,
            owner_user_id=None,
            tags=[],
        )


async def test_first_pipeline_becomes_the_default_and_new_leads_land_in_its_first_stage(
    org: Org, scope_of: Any, make_pipeline: Make
) -> None:
    made = await make_pipeline(org)
    lead = await _lead(scope_of, org)
    assert made["isDefault"] is True
    assert lead["stage"] == {"id": made["stages"][0]["id"], "name": "New"}


async def test_a_lead_without_a_pipeline_in_the_org_is_refused(org: Org, scope_of: Any) -> None:
    with pytest.raises(DomainError) as info:
        await _lead(scope_of, org)
    assert info.value.details["reason"] == "no_pipeline"


async def test_a_second_live_lead_with_the_same_email_is_a_duplicate(
    org: Org, scope_of: Any, make_pipeline: Make
) -> None:
    await make_pipeline(org)
    first = await _lead(scope_of, org)
    with pytest.raises(DomainError) as info:
        await _lead(scope_of, org, first="Other", email="NOA@example.com")
    assert info.value.details["reason"] == "duplicate_lead"
    assert info.value.details["leadId"] == first["id"]


async def test_moving_records_activity_and_the_previous_stage(
    org: Org, scope_of: Any, make_pipeline: Make
) -> None:
    made = await make_pipeline(org)
    lead = await _lead(scope_of, org)
    async with scope_of(org) as scope:
        moved = await leads.move_lead(scope, None, UUID(lead["id"]), UUID(made["stages"][2]["id"]))
        detail = await leads.get_lead(scope, UUID(lead["id"]))
    assert moved["stage"]["name"] == "Trial"
    assert moved["previousStageId"] == made["stages"][0]["id"]
    assert detail["activity"][0]["kind"] == "moved"
    assert (detail["activity"][0]["from"], detail["activity"][0]["to"]) == ("New", "Trial")


async def test_the_database_refuses_a_stage_of_another_pipeline(
    org: Org, scope_of: Any, make_pipeline: Make
) -> None:
    await make_pipeline(org)
    other = await make_pipeline(org, name="Corporate")
    lead = await _lead(scope_of, org)
    with pytest.raises(psycopg.errors.ForeignKeyViolation):
        async with scope_of(org) as scope:
            await scope.conn.execute(
                "UPDATE leads SET stage_id = %s WHERE id = %s",
                (other["stages"][0]["id"], lead["id"]),
            )


async def test_archive_then_restore_puts_back_the_status(
    org: Org, scope_of: Any, make_pipeline: Make
) -> None:
    await make_pipeline(org)
    lead = await _lead(scope_of, org)
    lead_id = UUID(lead["id"])
    async with scope_of(org) as scope:
        await leads.set_status(scope, None, lead_id, "lost", "too far")
        archived = await leads.archive_lead(scope, None, lead_id)
        restored = await leads.restore_lead(scope, None, lead_id)
    assert archived["status"] == "archived"
    assert restored["status"] == "lost" and restored["lostReason"] == "too far"


async def test_an_archived_lead_does_not_move(org: Org, scope_of: Any, make_pipeline: Make) -> None:
    made = await make_pipeline(org)
    lead = await _lead(scope_of, org)
    async with scope_of(org) as scope:
        await leads.archive_lead(scope, None, UUID(lead["id"]))
    with pytest.raises(DomainError) as info:
        async with scope_of(org) as scope:
            await leads.move_lead(scope, None, UUID(lead["id"]), UUID(made["stages"][1]["id"]))
    assert info.value.details["reason"] == "lead_archived"


async def test_converting_creates_an_invited_member_and_links_the_lead_threads(
    org: Org, scope_of: Any, make_pipeline: Make
) -> None:
    await make_pipeline(org)
    lead = await _lead(scope_of, org)
    async with scope_of(org) as scope:
        await scope.conn.execute(
            "INSERT INTO inbox_threads (organization_id, lead_id, subject) VALUES (%s, %s, 'Hi')",
            (org.id, lead["id"]),
        )
        converted = await leads.convert_lead(scope, None, UUID(lead["id"]))
        cur = await scope.conn.execute(
            "SELECT m.role, m.status, u.full_name, u.email, (SELECT membership_id FROM inbox_threads) AS thread_member"
            " FROM org_memberships m JOIN users u ON u.id = m.user_id WHERE m.id = %s",
            (converted["memberId"],),
        )
        row = await cur.fetchone()
    assert converted["status"] == "converted" and converted["existingMember"] is False
    assert row is not None
    assert (row["role"], row["status"], row["full_name"], row["email"]) == (
        "member",
        "invited",
        "Noa Bar",
        "noa@example.com",
    )
    assert str(row["thread_member"]) == converted["memberId"]


async def test_converting_a_lead_whose_email_is_a_member_links_that_member(
    org: Org, scope_of: Any, make_pipeline: Make, clean_db: str
) -> None:
    await make_pipeline(org)
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "UPDATE users SET email = 'noa@example.com' WHERE id = %s", (org["member"].user_id,)
        )
    lead = await _lead(scope_of, org)
    async with scope_of(org) as scope:
        converted = await leads.convert_lead(scope, None, UUID(lead["id"]))
    assert converted["existingMember"] is True
    assert converted["memberId"] == str(org["member"].membership_id)


async def test_the_member_creating_function_needs_a_bound_org(db: Any) -> None:
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        async with db.system_tx() as conn:
            await conn.execute("SELECT * FROM spotter_create_invited_member('X', NULL)")


async def test_bulk_changes_refuse_the_whole_batch_when_one_id_is_foreign(
    org: Org, other_org: Org, scope_of: Any, make_pipeline: Make
) -> None:
    await make_pipeline(org)
    await make_pipeline(other_org)
    mine = await _lead(scope_of, org)
    theirs = await _lead(scope_of, other_org, first="Theirs", email="t@example.com")
    with pytest.raises(DomainError) as info:
        async with scope_of(org) as scope:
            await leads.bulk_tag(
                scope, None, [UUID(mine["id"]), UUID(theirs["id"])], add=["vip"], remove=[]
            )
    async with scope_of(org) as scope:
        after = await leads.get_lead(scope, UUID(mine["id"]))
    assert info.value.code == "not_found" and info.value.details["leadIds"] == [theirs["id"]]
    assert "tags" not in after


async def test_bulk_tag_adds_and_removes_and_keeps_tags_unique(
    org: Org, scope_of: Any, make_pipeline: Make
) -> None:
    await make_pipeline(org)
    a = await _lead(scope_of, org)
    b = await _lead(scope_of, org, first="Tal", email="tal@example.com")
    async with scope_of(org) as scope:
        await leads.tag_lead(scope, None, UUID(a["id"]), ["Trial ", "hot"])
        await leads.bulk_tag(
            scope, None, [UUID(a["id"]), UUID(b["id"])], add=["trial", "vip"], remove=["hot"]
        )
        tags = await leads.list_tags(scope)
    assert tags == [{"tag": "trial", "leads": 2}, {"tag": "vip", "leads": 2}]


async def test_rename_tag_merges_into_an_existing_one(
    org: Org, scope_of: Any, make_pipeline: Make
) -> None:
    await make_pipeline(org)
    a = await _lead(scope_of, org)
    async with scope_of(org) as scope:
        await leads.tag_lead(scope, None, UUID(a["id"]), ["trial", "trials"])
        renamed = await leads.rename_tag(scope, "trials", "trial")
        detail = await leads.get_lead(scope, UUID(a["id"]))
    assert renamed["leads"] == 1
    assert detail["tags"] == ["trial"]


async def test_reorder_stages_needs_every_stage_once(
    org: Org, scope_of: Any, make_pipeline: Make
) -> None:
    made = await make_pipeline(org)
    ids = [UUID(s["id"]) for s in made["stages"]]
    async with scope_of(org) as scope:
        reordered = await pipelines.reorder_stages(scope, UUID(made["id"]), ids[::-1])
    with pytest.raises(DomainError):
        async with scope_of(org) as scope:
            await pipelines.reorder_stages(scope, UUID(made["id"]), ids[:2])
    assert [s["name"] for s in reordered["stages"]] == ["Trial", "Contacted", "New"]
    assert reordered["previousOrder"] == [str(i) for i in ids]


async def test_deleting_a_stage_with_leads_moves_them_and_closes_the_gap(
    org: Org, scope_of: Any, make_pipeline: Make
) -> None:
    made = await make_pipeline(org)
    lead = await _lead(scope_of, org)
    first, second = (UUID(s["id"]) for s in made["stages"][:2])
    with pytest.raises(DomainError) as refused:
        async with scope_of(org) as scope:
            await pipelines.delete_stage(scope, first, move_to_stage_id=None)
    async with scope_of(org) as scope:
        deleted = await pipelines.delete_stage(scope, first, move_to_stage_id=second)
        after = await leads.get_lead(scope, UUID(lead["id"]))
        pipeline = await pipelines.get_pipeline(scope, UUID(made["id"]))
    assert refused.value.details["reason"] == "stage_has_leads"
    assert deleted["movedLeads"] == 1 and after["stage"]["name"] == "Contacted"
    assert [(s["name"], s["position"]) for s in pipeline["stages"]] == [
        ("Contacted", 0),
        ("Trial", 1),
    ]


async def test_archiving_a_pipeline_with_open_leads_is_refused(
    org: Org, scope_of: Any, make_pipeline: Make
) -> None:
    await make_pipeline(org)
    second = await make_pipeline(org, name="Corporate")
    async with scope_of(org) as scope:
        await leads.create_lead(
            scope,
            None,
            contact=_contact(),
            pipeline_id=UUID(second["id"]),
            stage_id=None,
            owner_user_id=None,
            tags=[],
        )
    with pytest.raises(DomainError) as info:
        async with scope_of(org) as scope:
            await pipelines.archive_pipeline(scope, UUID(second["id"]))
    assert info.value.details["reason"] == "pipeline_has_open_leads"


async def test_another_orgs_lead_is_not_found(
    org: Org, other_org: Org, scope_of: Any, make_pipeline: Make
) -> None:
    await make_pipeline(other_org)
    theirs = await _lead(scope_of, other_org)
    for lead_id in (UUID(theirs["id"]), uuid.uuid4()):
        with pytest.raises(DomainError) as info:
            async with scope_of(org) as scope:
                await leads.get_lead(scope, lead_id)
        assert info.value.code == "not_found"


async def test_erase_person_removes_their_leads_with_notes_and_activity(
    org: Org, scope_of: Any, make_pipeline: Make
) -> None:
    await make_pipeline(org)
    lead = await _lead(scope_of, org)
    async with scope_of(org) as scope:
        await leads.add_note(scope, None, UUID(lead["id"]), "Noa wants mornings")
        converted = await leads.convert_lead(scope, None, UUID(lead["id"]))
        cur = await scope.conn.execute(
            "SELECT user_id FROM org_memberships WHERE id = %s", (converted["memberId"],)
        )
        member = await cur.fetchone()
        assert member is not None
        await leads.erase_person(scope, member["user_id"])
        cur = await scope.conn.execute(
            "SELECT (SELECT count(*) FROM leads) AS leads, (SELECT count(*) FROM lead_notes) AS notes,"
            " (SELECT count(*) FROM lead_activities) AS activity"
        )
        counts = await cur.fetchone()
    assert counts == {"leads": 0, "notes": 0, "activity": 0}


async def test_list_finds_by_name_email_or_phone_and_takes_wildcards_literally(
    org: Org, scope_of: Any, make_pipeline: Make
) -> None:
    await make_pipeline(org)
    await _lead(scope_of, org)
    await _lead(scope_of, org, first="Tal", email="tal_100%@example.com")
    async with scope_of(org) as scope:
        by_name = await leads.list_leads(scope, query="noa b")
        by_email = await leads.list_leads(scope, query="_100%")
        wildcard = await leads.list_leads(scope, query="%")
    assert [lead["name"] for lead in by_name["leads"]] == ["Noa Bar"]
    assert [lead["name"] for lead in by_email["leads"]] == ["Tal Bar"]
    assert wildcard["total"] == 1
