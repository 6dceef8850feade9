"""One conversation through the model (scripted, real SDK path): a lead's inbox message is read,
answered and the lead converted to a member, each outbound or member-creating step confirmed."""

from __future__ import annotations

import psycopg

from spotter.agent import events as ev
from spotter.agent.run import Decision
from spotter.agent.run import resolve as resolution
from spotter.db import Database
from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from tests.support.agent import conversation_id_of, deps_for, kinds, run_turn, stored_executions
from tests.support.callers import caller_for
from tests.support.crm import make_crm
from tests.support.hitl import collect, of_type
from tests.support.world import Org

REPLY = "Hi Noa! Thursday 07:00 works: come 10 minutes early and we'll get you set up."


async def test_a_lead_goes_from_the_inbox_to_a_member_with_both_steps_confirmed(
    db: Database, clean_db: str, org: Org
) -> None:
    w = await make_crm(db, clean_db, org)
    model = ScriptedModel([
        tool_reply(ToolUse("inbox", {"action": "list", "args": {"unreadOnly": True}}, "t_list")),
        tool_reply(ToolUse("inbox", {"action": "read", "args": {"threadId": w.lead_thread}}, "t_read")),
        tool_reply(
            ToolUse("inbox", {"action": "reply", "args": {"threadId": w.lead_thread, "body": REPLY}}, "t_reply"),
            ToolUse("leads", {"action": "convert", "args": {"leadId": w.lead}}, "t_convert"),
            text="I'll reply and convert her; please confirm both.",
        ),
        Reply([Text("Replied to Noa and made her a member.")]),
    ])  # fmt: skip
    owner = await caller_for(db, org, "owner")
    deps = deps_for(db, model)
    events = await run_turn(
        deps, owner, "Noa asked about a trial: say Thursday 7am works and make her a member.",
        pathname="/dashboard/inbox",
    )  # fmt: skip
    conversation = conversation_id_of(events)
    cards = of_type(events, ev.ConfirmationPending)
    assert [c.tool_use_id for c in cards] == ["t_reply", "t_convert"]
    reply_card, convert_card = (c.confirmation for c in cards)
    assert reply_card.outbound["body"] == REPLY and reply_card.affected_count == 1
    assert (convert_card.target, convert_card.consequences) == (
        "Noa Bar",
        ["lead_converted", "member_invited"],
    )
    assert kinds(events)[-1] == "done"
    with psycopg.connect(clean_db) as conn:
        assert conn.execute("SELECT count(*) FROM outbox_messages").fetchone() == (0,)

    resolved = await collect(resolution.confirm_batch(
        deps, owner, conversation, [Decision("t_reply", approved=True), Decision("t_convert", approved=True)],
    ))  # fmt: skip
    completed = of_type(resolved, ev.ToolCompleted)
    assert [(c.tool_use_id, c.ok) for c in completed] == [("t_reply", True), ("t_convert", True)]
    assert "Replied to Noa" in "".join(e.delta for e in of_type(resolved, ev.TextDelta))
    rows = {r["tool_use_id"]: r for r in stored_executions(clean_db, conversation)}
    assert {k: r["status"] for k, r in rows.items()} == {
        "t_list": "succeeded", "t_read": "succeeded", "t_reply": "succeeded", "t_convert": "succeeded",
    }  # fmt: skip
    with psycopg.connect(clean_db) as conn:
        external = conn.execute(
            "SELECT tool_use_id FROM ai_tool_executions WHERE external_effects"
        ).fetchall()
        outbox = conn.execute("SELECT to_address, body, status FROM outbox_messages").fetchall()
        lead = conn.execute(
            "SELECT status, converted_user_id FROM leads WHERE id = %s", (w.lead,)
        ).fetchone()
        member = conn.execute(
            "SELECT m.role, m.status, u.full_name FROM org_memberships m JOIN users u ON u.id = m.user_id"
            " WHERE m.user_id = %s",
            (lead[1] if lead else None,),
        ).fetchone()
        thread = conn.execute(
            "SELECT membership_id IS NOT NULL FROM inbox_threads WHERE id = %s", (w.lead_thread,)
        ).fetchone()
    assert external == [("t_reply",)]
    # delivered right after the confirmed call committed (the deps' recording sender)
    assert outbox == [(f"noa.{org.clerk_org_id}@example.com", REPLY, "delivered")]
    assert lead is not None and lead[0] == "converted"
    assert member == ("member", "invited", "Noa Bar")
    assert thread == (True,)
