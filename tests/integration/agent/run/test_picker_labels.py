"""A picker shows what the server knows each id to be, never the model's label for it (issue 30
item 8: a member was shown as "Maya Rosen" while the id was another member's)."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest

from spotter.agent import events as ev
from spotter.agent.run import resolve as resolution
from spotter.auth import Caller
from spotter.db import Database
from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse
from tests.support.agent import deps_for, stored_executions
from tests.support.callers import caller_for
from tests.support.hitl import add_program, collect, of_type, suspend
from tests.support.memberships import add_member
from tests.support.tokens import TokenFactory
from tests.support.world import Org, add_person


@pytest.fixture
async def owner(db: Database, org: Org) -> Caller:
    return await caller_for(db, org, "owner")


def picker(kind: str, *candidates: dict[str, Any], tool_use_id: str = "t1") -> ToolUse:
    args = {"kind": kind, "prompt": "Which one?", "candidates": list(candidates)}
    return ToolUse("read", {"action": "ask_user_to_pick", "args": args}, id=tool_use_id)


async def test_each_candidate_is_named_by_the_server_whatever_label_the_model_wrote(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    maya = add_member(clean_db, org, "Maya Rosen", "maya@example.com")
    dana = add_member(clean_db, org, "Dana Levi", "dana@example.com")
    lie = picker(
        "member",
        {"id": str(dana.membership_id), "label": "Maya Rosen", "sublabel": "maya@example.com"},
        {"id": str(maya.membership_id), "label": "Someone else", "detail": "trust me"},
    )
    model = ScriptedModel([Reply([Text("Done.")])])
    conversation, events = await suspend(db, owner, model, lie)
    [asked] = of_type(events, ev.DisambiguationPending)
    shown = [(c.id, c.label, c.sublabel, c.detail) for c in asked.candidates]
    assert shown == [
        (str(dana.membership_id), "Dana Levi", "dana@example.com", None),
        (str(maya.membership_id), "Maya Rosen", "maya@example.com", None),
    ]
    [row] = stored_executions(clean_db, str(conversation))
    assert [c["label"] for c in row["input"]["args"]["candidates"]] == ["Dana Levi", "Maya Rosen"]
    events = await collect(
        resolution.pick(deps_for(db, model), owner, conversation, "t1", str(dana.membership_id))
    )
    [picked] = of_type(events, ev.ToolCompleted)
    assert picked.output["pickedLabel"] == "Dana Levi", "what the model reads is the server's"


async def test_the_loader_shows_the_servers_candidates(
    agent_client: httpx.AsyncClient, model: ScriptedModel, tokens: TokenFactory, org: Org,
    clean_db: str,
) -> None:  # fmt: skip
    dana = add_member(clean_db, org, "Dana Levi", "dana@example.com")
    maya = add_member(clean_db, org, "Maya Rosen")
    model.script.append(
        Reply(
            [picker("member", {"id": str(dana.membership_id), "label": "Maya Rosen"},
                    {"id": str(maya.membership_id), "label": "x"})],
            stop_reason="tool_use",
        )
    )  # fmt: skip
    headers = {
        "authorization": f"Bearer {tokens.token(org['owner'].clerk_user_id, org.clerk_org_id)}"
    }
    body = {"text": "book Maya", "pageContext": {"pathname": "/dashboard"}}
    sent = await agent_client.post("/agent/messages", json=body, headers=headers)
    cid = next(json.loads(line[6:]) for line in sent.text.splitlines() if line.startswith("data: "))
    detail = await agent_client.get(
        f"/agent/conversations/{cid['conversationId']}", headers=headers
    )
    [call] = detail.json()["toolExecutions"]
    assert call["awaitingUser"] is True
    assert [(c["label"], c.get("sublabel")) for c in call["input"]["args"]["candidates"]] == [
        ("Dana Levi", "dana@example.com"),
        ("Maya Rosen", "member"),
    ]


@pytest.mark.parametrize("bad", ["foreign", "missing", "not_an_id", "member_as_coach"])
async def test_a_candidate_the_server_cannot_name_refuses_the_picker_and_the_turn_goes_on(
    db: Database, org: Org, other_org: Org, owner: Caller, clean_db: str, bad: str
) -> None:
    maya = add_member(clean_db, org, "Maya Rosen")
    ids = {
        "foreign": str(add_member(clean_db, other_org, "Maya Rosen").membership_id),
        "missing": str(uuid.uuid4()),
        "not_an_id": "maya",
        "member_as_coach": str(maya.membership_id),
    }
    kind = "coach" if bad == "member_as_coach" else "member"
    coach = str(add_person(clean_db, org, "Coach Carter", role="coach").membership_id)
    first = coach if kind == "coach" else str(maya.membership_id)
    call = picker(kind, {"id": first, "label": "A"}, {"id": ids[bad], "label": "Maya Rosen"})
    model = ScriptedModel([Reply([Text("I could not offer that choice.")])])
    _, events = await suspend(db, owner, model, call)
    assert not of_type(events, ev.DisambiguationPending), "nobody is asked"
    [completed] = of_type(events, ev.ToolCompleted)
    assert completed.ok is False and completed.error["code"] == "not_found"
    assert isinstance(events[-1], ev.Done) and not of_type(events, ev.Error)


async def test_a_record_id_offered_as_kind_other_is_refused(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    program = add_program(clean_db, org, "Engine")
    call = picker("other", {"id": str(program), "label": "Barbell"}, {"id": "b", "label": "B"})
    model = ScriptedModel([Reply([Text("Sorry.")])])
    _, events = await suspend(db, owner, model, call)
    [completed] = of_type(events, ev.ToolCompleted)
    assert completed.ok is False and completed.error["code"] == "invalid_args"


async def test_programs_and_coaches_are_named_too(
    db: Database, org: Org, owner: Caller, clean_db: str
) -> None:
    engine, barbell = add_program(clean_db, org, "Engine"), add_program(clean_db, org, "Barbell")
    call = picker(
        "program", {"id": str(engine), "label": "Barbell"}, {"id": str(barbell), "label": "?"}
    )
    _, events = await suspend(db, owner, ScriptedModel(), call)
    [asked] = of_type(events, ev.DisambiguationPending)
    assert [(c.label, c.sublabel) for c in asked.candidates] == [
        ("Engine", None),
        ("Barbell", None),
    ]
    coach = add_person(clean_db, org, "Coach Carter", role="coach")
    call = picker(
        "coach",
        {"id": str(coach.membership_id), "label": "Maya"},
        {"id": str(org["owner"].membership_id), "label": "?"},
        tool_use_id="t2",
    )
    _, events = await suspend(db, owner, ScriptedModel(), call)
    [asked] = of_type(events, ev.DisambiguationPending)
    assert [(c.label, c.sublabel) for c in asked.candidates] == [
        ("Coach Carter", "coach"),
        (f"Owner {org.clerk_org_id.removeprefix('org_')}", "owner"),
    ]
