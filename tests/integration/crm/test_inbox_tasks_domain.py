"""domain.inbox and domain.tasks against real Postgres, on the app role."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any
from uuid import UUID

import psycopg
import pytest

from spotter.domain import inbox, outbox, tasks
from spotter.domain.errors import DomainError
from tests.support.world import Org, add_person

TODAY = date(2026, 12, 1)


async def _thread(
    scope_of: Any, org: Org, membership_id: UUID, body: str = "Can I freeze?"
) -> UUID:
    async with scope_of(org) as scope:
        cur = await scope.conn.execute(
            "INSERT INTO inbox_threads (organization_id, membership_id, subject)"
            " VALUES (%s, %s, 'Freeze') RETURNING id",
            (org.id, membership_id),
        )
        row = await cur.fetchone()
        assert row is not None
        await scope.conn.execute(
            "INSERT INTO inbox_messages (organization_id, thread_id, direction, body)"
            " VALUES (%s, %s, 'inbound', %s)",
            (org.id, row["id"], body),
        )
        return UUID(str(row["id"]))


async def test_reading_a_thread_marks_it_read(org: Org, scope_of: Any) -> None:
    thread_id = await _thread(scope_of, org, org["member"].membership_id)  # type: ignore[arg-type]
    async with scope_of(org) as scope:
        before = await inbox.list_threads(scope, unread_only=True)
        read = await inbox.read_thread(scope, thread_id)
        after = await inbox.list_threads(scope, unread_only=True)
    assert [t["id"] for t in before] == [str(thread_id)]
    assert read["messages"][0]["body"] == "Can I freeze?"
    assert after == []


async def test_a_reply_is_queued_in_the_outbox_and_stored_on_the_thread(
    org: Org, scope_of: Any, clean_db: str
) -> None:
    person = add_person(clean_db, org, "Maya Cohen")
    with psycopg.connect(clean_db) as conn:
        conn.execute("UPDATE users SET email = 'maya@example.com' WHERE id = %s", (person.user_id,))
    thread_id = await _thread(scope_of, org, person.membership_id)  # type: ignore[arg-type]
    async with scope_of(org) as scope:
        sent = await inbox.reply(
            scope, org["coach"].user_id, thread_id, "Yes, from Monday.", link=None
        )
        read = await inbox.read_thread(scope, thread_id)
        queued = await outbox.statuses(scope, [UUID(sent["messages"][0]["id"])])
    assert sent["recipientCount"] == 1 and sent["messages"][0]["to"] == "maya@example.com"
    assert queued[0]["status"] == "queued"
    assert read["messages"][-1] == {
        "id": sent["id"],
        "direction": "outbound",
        "body": "Yes, from Monday.",
        "at": read["messages"][-1]["at"],
        "by": f"Coach {org.clerk_org_id[4:]}",
        "delivery": "queued",
    }


async def test_a_reply_to_nobody_with_an_email_is_refused(org: Org, scope_of: Any) -> None:
    thread_id = await _thread(scope_of, org, org["member"].membership_id)  # type: ignore[arg-type]
    with pytest.raises(DomainError) as info:
        async with scope_of(org) as scope:
            await inbox.reply(scope, org["coach"].user_id, thread_id, "Hi", link=None)
    assert info.value.details["reason"] == "no_recipients"


async def test_tagging_reports_only_what_changed(org: Org, scope_of: Any) -> None:
    thread_id = await _thread(scope_of, org, org["member"].membership_id)  # type: ignore[arg-type]
    async with scope_of(org) as scope:
        await inbox.tag_thread(scope, thread_id, add=["billing"], remove=[])
        again = await inbox.tag_thread(scope, thread_id, add=["billing", "urgent"], remove=["nope"])
    assert (again["added"], again["removed"], again["tags"]) == (
        ["urgent"],
        [],
        ["billing", "urgent"],
    )


async def test_closing_a_closed_thread_is_a_conflict(org: Org, scope_of: Any) -> None:
    thread_id = await _thread(scope_of, org, org["member"].membership_id)  # type: ignore[arg-type]
    async with scope_of(org) as scope:
        await inbox.set_thread_status(scope, thread_id, "closed")
    with pytest.raises(DomainError) as info:
        async with scope_of(org) as scope:
            await inbox.set_thread_status(scope, thread_id, "closed")
    assert info.value.code == "conflict"


async def test_inbox_erase_person_removes_their_threads(org: Org, scope_of: Any) -> None:
    await _thread(scope_of, org, org["member"].membership_id)  # type: ignore[arg-type]
    async with scope_of(org) as scope:
        await inbox.erase_person(scope, org["member"].user_id)
        cur = await scope.conn.execute("SELECT count(*) AS n FROM inbox_messages")
        row = await cur.fetchone()
    assert row == {"n": 0}


async def test_tasks_list_soonest_due_first_and_flag_overdue(org: Org, scope_of: Any) -> None:
    async with scope_of(org) as scope:
        for title, due in (
            ("Later", TODAY + timedelta(3)),
            ("Undated", None),
            ("Late", TODAY - timedelta(1)),
        ):
            await tasks.create_task(
                scope,
                None,
                TODAY,
                title=title,
                notes=None,
                due_on=due,
                assignee_user_id=None,
                lead_id=None,
                membership_id=None,
            )
        listed = await tasks.list_tasks(scope, TODAY)
    assert [t["title"] for t in listed] == ["Late", "Later", "Undated"]
    assert [t.get("overdue") for t in listed] == [True, False, None]


async def test_completing_twice_is_a_conflict_and_reopening_works(org: Org, scope_of: Any) -> None:
    async with scope_of(org) as scope:
        task = await tasks.create_task(
            scope,
            None,
            TODAY,
            title="Call back",
            notes=None,
            due_on=None,
            assignee_user_id=None,
            lead_id=None,
            membership_id=None,
        )
        task_id = UUID(task["id"])
        done = await tasks.complete_task(scope, task_id, TODAY, True)
        with pytest.raises(DomainError):
            await tasks.complete_task(scope, task_id, TODAY, True)
    async with scope_of(org) as scope:
        reopened = await tasks.complete_task(scope, task_id, TODAY, False)
    assert (done["status"], reopened["status"]) == ("done", "open")


async def test_a_task_about_another_orgs_member_is_not_found(
    org: Org, other_org: Org, scope_of: Any
) -> None:
    with pytest.raises(DomainError) as info:
        async with scope_of(org) as scope:
            await tasks.create_task(
                scope,
                None,
                TODAY,
                title="x",
                notes=None,
                due_on=None,
                assignee_user_id=None,
                lead_id=None,
                membership_id=other_org["member"].membership_id,
            )
    assert info.value.code == "not_found"


async def test_a_deleted_task_is_gone_from_lists_and_reads(org: Org, scope_of: Any) -> None:
    async with scope_of(org) as scope:
        task = await tasks.create_task(
            scope,
            None,
            TODAY,
            title="Tidy",
            notes=None,
            due_on=None,
            assignee_user_id=None,
            lead_id=None,
            membership_id=None,
        )
        await tasks.delete_task(scope, UUID(task["id"]))
        listed = await tasks.list_tasks(scope, TODAY, status=None)
        with pytest.raises(DomainError):
            await tasks.task_title(scope, UUID(task["id"]))
    assert listed == []


async def test_tasks_erase_person_removes_tasks_about_them_and_unassigns_them(
    org: Org, scope_of: Any
) -> None:
    member = org["member"]
    async with scope_of(org) as scope:
        for title, membership, assignee in (("About them", member.membership_id, None),
                                            ("Theirs", None, member.user_id)):  # fmt: skip
            await tasks.create_task(
                scope, None, TODAY, title=title, notes=None, due_on=None,
                assignee_user_id=assignee, lead_id=None, membership_id=membership,
            )  # fmt: skip
        await tasks.erase_person(scope, member.user_id)
        left = await tasks.list_tasks(scope, TODAY, status=None)
    assert [(t["title"], "assignee" in t) for t in left] == [("Theirs", False)]
