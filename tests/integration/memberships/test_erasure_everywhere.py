"""Erasure that erases (issue 30 item 1): after `memberships.erase` the member is in no column of
any table — not by full name, not by first and last name written apart, not by email, Clerk id
or phone number however it was typed — in the gym's records nor the assistant's (the stream
log, page contexts, tool calls of every channel); other people who share a name stay intact."""

from __future__ import annotations

import uuid
from uuid import UUID

import psycopg
import pytest
from psycopg.types.json import Jsonb

import spotter.agent.erasure  # noqa: F401  (registers the assistant's records)
from spotter.db import Database
from spotter.db.scope import OrgScope
from spotter.domain import erasure, outbox
from tests.support.erasure import (
    columns_matching,
    columns_mentioning,
    columns_with_both,
    text_columns,
    typed_phone,
)
from tests.support.memberships import add_member
from tests.support.world import Org, Person

FIRST, LAST = "Dana", "Levi"
NAME, EMAIL = f"{FIRST} {LAST}", "dana.levi@example.com"
PHONE_DIGITS = "972541234567"
TYPED_PHONES = ["054-1234567", "+972 (0)54-123-4567", "054 123 4567", "054.123.4567"]


def gone(url: str, person: Person) -> dict[str, list[str]]:
    """Every column still holding the person, by the form that found it."""
    found = {
        "name, email or Clerk id": columns_mentioning(url, NAME, EMAIL, person.clerk_user_id),
        "phone as typed": columns_matching(url, typed_phone(PHONE_DIGITS)),
        "first and last name apart": columns_with_both(url, FIRST, LAST),
    }
    return {form: columns for form, columns in found.items() if columns}


def _leave_traces(url: str, org: Org, dana: Person) -> None:
    """Wherever a user, the model or a tool may have written her, as each would."""
    owner = org["owner"]
    with psycopg.connect(url) as conn:
        pipeline = conn.execute(
            "INSERT INTO lead_pipelines (organization_id, name, is_default) VALUES (%s, 'Sales',"
            " true) RETURNING id",
            (org.id,),
        ).fetchone()[0]  # type: ignore[index]
        stage = conn.execute(
            "INSERT INTO lead_stages (organization_id, pipeline_id, name, position)"
            " VALUES (%s, %s, 'New', 0) RETURNING id",
            (org.id, pipeline),
        ).fetchone()[0]  # type: ignore[index]
        # she came in as a lead (how the gym has her phone), and was converted
        conn.execute(
            "INSERT INTO leads (organization_id, pipeline_id, stage_id, status, first_name,"
            " last_name, email, phone, converted_user_id, converted_at) VALUES"
            " (%s, %s, %s, 'converted', %s, %s, %s, %s, %s, now())",
            (org.id, pipeline, stage, FIRST, LAST, EMAIL, "+972-54-123-4567", dana.user_id),
        )
        ron = conn.execute(  # another person who shares her last name: his record stays his
            "INSERT INTO leads (organization_id, pipeline_id, stage_id, first_name, last_name,"
            " phone) VALUES (%s, %s, %s, 'Ron', %s, '050-7654321') RETURNING id",
            (org.id, pipeline, stage, LAST),
        ).fetchone()[0]  # type: ignore[index]
        conn.execute(
            "INSERT INTO lead_notes (organization_id, lead_id, body) VALUES (%s, %s, %s)",
            (org.id, ron, f"Referred by {NAME.upper()} ({EMAIL}), call 054 123 4567"),
        )
        conn.execute(
            "INSERT INTO staff_tasks (organization_id, title) VALUES (%s, %s)",
            (org.id, f"Call {LAST}, {FIRST} back on {TYPED_PHONES[3]}"),
        )
        ct = conn.execute(
            "INSERT INTO class_types (organization_id, name) VALUES (%s, 'PT') RETURNING id",
            (org.id,),
        ).fetchone()[0]  # type: ignore[index]
        conn.execute(
            "INSERT INTO class_sessions (organization_id, class_type_id, starts_at, ends_at,"
            " notes) VALUES (%s, %s, now(), now() + interval '1 hour', %s)",
            (org.id, ct, f"Private session with {NAME}"),
        )
        conn.execute(
            "INSERT INTO workouts (organization_id, title, scores) VALUES (%s, 'Fran', %s)",
            (org.id, Jsonb([{"athlete": FIRST, "family": LAST, "time": "3:10"}])),
        )
        conn.execute(
            "INSERT INTO audit_logs (organization_id, actor_clerk_id, action, resource)"
            " VALUES (%s, %s, 'booking.created', 'booking')",
            (org.id, dana.clerk_user_id),
        )
        # the assistant's records: a staff conversation about her, its stream log and calls
        staff, run, message = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
        conn.execute(
            "INSERT INTO ai_conversations (id, organization_id, user_id, title)"
            " VALUES (%s, %s, %s, %s), (%s, %s, %s, 'My bookings')",
            (staff, org.id, owner.user_id, f"About {FIRST}", uuid.uuid4(), org.id, dana.user_id),
        )
        page = {"pathname": "/dashboard/members", "selection": {
            "membershipId": str(dana.membership_id), "memberName": NAME, "memberEmail": EMAIL,
        }}  # fmt: skip
        conn.execute(
            "INSERT INTO ai_messages (id, organization_id, conversation_id, run_id, ordinal,"
            " role, content, page_context) VALUES (%s, %s, %s, %s, 0, 'user', %s, %s)",
            (message, org.id, staff, run,
             Jsonb([{"type": "text", "text": f"Text her at {TYPED_PHONES[2]}"}]), Jsonb(page)),
        )  # fmt: skip
        events = [
            [1, {"type": "text_delta", "delta": f"{NAME}'s email is {EMAIL}."}],
            [2, {"type": "tool_completed", "output": {"clerkUserId": dana.clerk_user_id}}],
            [3, {"type": "confirmation_pending", "confirmation": {"target": NAME}}],
        ]
        conn.execute(
            "INSERT INTO ai_run_events (organization_id, conversation_id, run_id, first_seq,"
            " last_seq, events) VALUES (%s, %s, %s, 1, 3, %s)",
            (org.id, staff, run, Jsonb(events)),
        )
        # streamed in pieces, split mid-number and mid-name across two batches
        for first_seq, pieces in (
            (4, ["Her phone: 054-12", "3-4567, and she is Da"]),
            (6, ["na L", "evi."]),
        ):
            conn.execute(
                "INSERT INTO ai_run_events (organization_id, conversation_id, run_id, first_seq,"
                " last_seq, events) VALUES (%s, %s, %s, %s, %s, %s)",
                (org.id, staff, run, first_seq, first_seq + 1, Jsonb([
                    [first_seq + i, {"type": "text_delta", "delta": p}] for i, p in enumerate(pieces)
                ])),
            )  # fmt: skip
        execution = conn.execute(
            "INSERT INTO ai_tool_executions (organization_id, conversation_id, message_id,"
            " position, tool_use_id, router, action, input, output, status) VALUES"
            " (%s, %s, %s, 0, 'toolu_1', 'read', 'find_members', %s, %s, 'succeeded')"
            " RETURNING id",
            (
                org.id,
                staff,
                message,
                Jsonb({"args": {"query": FIRST}}),
                Jsonb({"people": [{"name": NAME, "email": EMAIL}]}),
            ),
        ).fetchone()[0]  # type: ignore[index]
        conn.execute(
            "INSERT INTO ai_tool_undos (organization_id, conversation_id, execution_id, router,"
            " action, input, status, claimed_at) VALUES (%s, %s, %s, 'memberships', 'pause',"
            " %s, 'succeeded', now())",
            (org.id, staff, execution, Jsonb({"args": {"note": f"for {LAST}, {FIRST}"}})),
        )
        # an MCP client created her lead: the call's input spells her apart, with her phone
        conn.execute(
            "INSERT INTO ai_tool_executions (organization_id, channel, actor_user_id, position,"
            " tool_use_id, router, action, input, output, status) VALUES (%s, 'mcp', %s, 0,"
            " 'mcp_1', 'leads', 'create', %s, %s, 'succeeded')",
            (org.id, owner.user_id,
             Jsonb({"action": "create", "args": {
                 "firstName": FIRST, "lastName": LAST, "phone": TYPED_PHONES[1]}}),
             Jsonb({"lead": {"phone": int("541234567")}})),
        )  # fmt: skip


def _seqs(url: str) -> list[int]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT (e ->> 0)::int FROM ai_run_events, jsonb_array_elements(events) e ORDER BY 1"
        ).fetchall()
    return [r[0] for r in rows]


async def _erase(db: Database, org: Org, dana: Person) -> None:
    assert dana.membership_id is not None
    async with db.org_tx(org.id) as conn:
        scope = OrgScope(conn, org.id)
        other = outbox.Recipient("ron@example.com", "Ron Levi", "address")
        await outbox.enqueue(
            scope, recipients=[other], subject="Team news", body=f"Congrats to {NAME}!",
            source="test",
        )  # fmt: skip
    async with db.org_tx(org.id) as conn:
        await erasure.erase_member(OrgScope(conn, org.id), UUID(str(dana.membership_id)))


async def test_no_form_of_the_member_survives_anywhere(
    db: Database, org: Org, clean_db: str
) -> None:
    dana = add_member(clean_db, org, NAME, EMAIL)
    cohen = add_member(clean_db, org, f"{FIRST} Cohen", "dana.cohen@example.com")
    _leave_traces(clean_db, org, dana)
    before = gone(clean_db, dana)
    assert set(before) == {"name, email or Clerk id", "phone as typed", "first and last name apart"}
    assert {
        "ai_run_events.events", "ai_messages.page_context", "ai_tool_executions.input",
        "ai_tool_undos.input", "lead_notes.body", "staff_tasks.title", "workouts.scores",
        "audit_logs.actor_clerk_id",
    } <= {c for columns in before.values() for c in columns}  # fmt: skip
    await _erase(db, org, dana)
    assert gone(clean_db, dana) == {}
    with psycopg.connect(clean_db) as conn:
        streamed = conn.execute(
            "SELECT e -> 1 ->> 'delta' FROM ai_run_events, jsonb_array_elements(events) e"
            " WHERE first_seq >= 4 ORDER BY (e ->> 0)::int"
        ).fetchall()
    text = "".join(d for (d,) in streamed)
    assert "054" not in text and "Dana" not in text and "Levi" not in text, text
    assert [int(r) for r in _seqs(clean_db)] == [1, 2, 3, 4, 5, 6, 7], "every event keeps its id"
    with psycopg.connect(clean_db) as conn:
        kept = conn.execute(
            "SELECT (SELECT full_name FROM users WHERE id = %s),"
            " (SELECT last_name || ' ' || phone FROM leads WHERE first_name = 'Ron')",
            (cohen.user_id,),
        ).fetchone()
    assert kept == (f"{FIRST} Cohen", f"{LAST} 050-7654321"), "people who share a name stay"


async def test_an_erasure_without_the_assistants_records_refuses_to_run(
    db: Database, org: Org, clean_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(erasure, "_AREAS", {})
    dana = add_member(clean_db, org, NAME, EMAIL)
    with pytest.raises(RuntimeError, match="agent"):
        async with db.org_tx(org.id) as conn:
            await erasure.erase_member(OrgScope(conn, org.id), UUID(str(dana.membership_id)))
    assert columns_mentioning(clean_db, NAME) != [], "nothing half erased"


# What each text-like column of the schema is to erasure: free text redacted by a step (the
# gym's, `erasure.FREE_TEXT`; the assistant's, `agent.erasure`), a person's identity handled by
# their own step (another person's stays theirs), or a machine value no one types a name into.
# A new column must be placed here, so no area is left unwired.
AGENT_FREE_TEXT = {
    "ai_conversations.title", "ai_messages.content", "ai_messages.page_context",
    "ai_run_events.events", "ai_tool_executions.confirmation", "ai_tool_executions.error",
    "ai_tool_executions.input", "ai_tool_executions.output", "ai_tool_undos.error",
    "ai_tool_undos.input", "ai_tool_undos.output",
}  # fmt: skip
IDENTITY = {
    "users.full_name", "users.email", "users.clerk_user_id",  # anonymized (`user` step)
    "leads.first_name", "leads.last_name", "leads.email", "leads.phone",  # hers deleted
    "member_invitations.email", "member_invitations.full_name",  # hers erased by email
    "form_submissions.signer_name", "form_submissions.signer_email",  # hers cleared
    "outbox_messages.to_address", "outbox_messages.to_name",  # hers erased
    "search_documents.label", "search_documents.detail", "search_documents.body",  # derived
    "audit_logs.actor_clerk_id",  # hers replaced (`audit` step)
    "organizations.name", "organizations.clerk_org_id",  # the gym's own
}  # fmt: skip
MACHINE = {
    "ai_conversations.chat_id",  # the id an AI SDK app gave useChat (a CHECK keeps it one)
    "ai_messages.role", "ai_messages.model", "ai_messages.stop_reason", "ai_messages.usage",
    "ai_tool_executions.tool_use_id", "ai_tool_executions.router", "ai_tool_executions.action",
    "ai_tool_executions.status", "ai_tool_executions.confirm_policy", "ai_tool_executions.kind",
    "ai_tool_executions.channel", "ai_tool_undos.router", "ai_tool_undos.action",
    "ai_tool_undos.status", "assignments.status", "audit_logs.action", "audit_logs.resource",
    "audit_logs.resource_id", "audit_logs.metadata", "audit_logs.channel", "bookings.status",
    "class_sessions.status", "class_types.color", "email_automation_runs.event_key",
    "email_automations.trigger", "email_automations.status", "exercises.category",
    "exercises.equipment", "form_versions.status", "forms.kind", "forms.status",
    "help_article_embeddings.content_hash", "help_article_embeddings.model",
    "inbox_messages.direction", "inbox_threads.status", "lead_activities.kind",
    "lead_pipelines.status", "leads.status", "leads.status_before_archive",
    "member_invitations.status", "member_subscriptions.status", "membership_plans.interval",
    "membership_plans.status", "org_memberships.role", "org_memberships.status",
    "organizations.timezone", "organizations.default_locale", "organizations.platform_tier",
    "organizations.org_type", "organizations.feature_flags",
    "organizations.ai_loop_model",  # a model id an operator pins (a CHECK keeps it one)
    "outbox_messages.source",
    "outbox_messages.tool_use_id", "outbox_messages.recipient_kind", "outbox_messages.channel",
    "outbox_messages.status", "outbox_messages.provider_message_id", "outbox_messages.error",
    "programs.status", "schema_migrations.version",
    # the platform operator's note on a kill switch (`spotter agent-switch`): no user, model or
    # tool writes it, and the platform-wide row belongs to no org
    "agent_kill_switches.reason",
    # an MCP question's session (a hash) and its answer: only `approved` / `pick` (an id) are kept
    "mcp_elicitations.session_hash", "mcp_elicitations.answer",
    "schema_migrations.checksum", "search_documents.entity", "search_documents.content_hash",
    "search_documents.embedded_hash", "staff_tasks.status", "users.locale", "workouts.status",
}  # fmt: skip


def test_every_text_column_of_the_schema_is_placed(clean_db: str) -> None:
    domain = {f"{t}.{c}" for t, columns in erasure.FREE_TEXT.items() for c in columns}
    placed = domain | AGENT_FREE_TEXT | IDENTITY | MACHINE
    schema = {f"{t}.{c}" for t, c in text_columns(clean_db)}
    assert schema - placed == set(), "a column erasure knows nothing about"
    assert placed - schema == set(), "a placed column the schema no longer has"
