"""Approvals and pickers the SDK's way: `addToolApprovalResponse` / `addToolOutput`, then
`sendAutomaticallyWhen` posts the messages again. The server reads the answers off the newest
assistant message, checks each against the stored call (the card's fingerprint), runs them
through the same claim ledger as `/confirm`, `/confirm-batch` and `/pick`, and continues the
same assistant message in its last step."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import httpx
import psycopg

from spotter.providers.fake import Reply, ScriptedModel, Text, tool_reply
from tests.integration.http.conftest import bearer
from tests.support.chat import ChatClient, text, tool_parts, types, ui_chunks
from tests.support.hitl import (
    add_program,
    archive,
    ask,
    audit_count,
    program_status,
)
from tests.support.tokens import TokenFactory
from tests.support.world import Org


def _last_tool_result(model: ScriptedModel) -> list[dict[str, object]]:
    content = model.requests[-1]["messages"][-1]["content"]
    return [b for b in content if b.get("type") == "tool_result"]


async def test_an_approval_runs_the_call_and_moves_its_part_in_place(
    chat: ChatClient, model: ScriptedModel, clean_db: str, org: Org
) -> None:
    program = add_program(clean_db, org, "Old track")
    model.script += [tool_reply(archive(program, "t_arch"), text="Archive it?")]
    await chat.send("archive the old track")
    part = chat.part("t_arch")
    assert part["type"] == "tool-programs_archive" and part["state"] == "approval-requested"
    assert part["approval"]["descriptor"]["confirmation"]["target"] == "Old track"
    assert chat.last[-1]["finishReason"] == "tool-calls"
    message_id = chat.assistant()["id"]

    model.script.append(Reply([Text("Archived.")]))
    chat.approve("t_arch")
    response = await chat.submit()
    assert response.status_code == 200, response.text
    assert program_status(clean_db, program) == "archived"
    # the same message, the same step: no new part with the same toolCallId
    assert chat.last[0] == {
        "type": "start",
        "messageId": message_id,
        "messageMetadata": chat.last[0]["messageMetadata"],
    }
    before_outcome = types(chat.last)[: types(chat.last).index("tool-output-available")]
    assert "start-step" not in before_outcome and "tool-input-available" not in before_outcome
    assert [p["toolCallId"] for p in tool_parts(chat.assistant())] == ["t_arch"]
    assert chat.part("t_arch")["state"] == "output-available"
    assert chat.assistant()["id"] == message_id and len(chat.messages) == 2
    assert text(chat.assistant()) == "Archive it?Archived."
    assert chat.last[-1]["finishReason"] == "stop"


async def test_a_rejection_is_denied_and_its_reason_reaches_the_model(
    chat: ChatClient, model: ScriptedModel, clean_db: str, org: Org
) -> None:
    program = add_program(clean_db, org, "Keep me")
    model.script += [tool_reply(archive(program, "t_arch")), Reply([Text("Left it.")])]
    await chat.send("archive it")
    chat.approve("t_arch", approved=False, reason="members still use it")
    await chat.submit()
    assert program_status(clean_db, program) == "active"
    assert chat.part("t_arch")["state"] == "output-denied"
    assert "tool-output-error" not in types(chat.last)
    [result] = _last_tool_result(model)
    assert "members still use it" in json.dumps(result)
    assert "rejected_by_user" in json.dumps(result)


async def test_two_answers_given_at_once_are_one_batch(
    chat: ChatClient, model: ScriptedModel, clean_db: str, org: Org
) -> None:
    first, second = add_program(clean_db, org, "A"), add_program(clean_db, org, "B")
    model.script.append(tool_reply(archive(first, "t_a"), archive(second, "t_b")))
    await chat.send("archive A and B")
    assert [p["state"] for p in tool_parts(chat.assistant())] == ["approval-requested"] * 2
    model.script.append(Reply([Text("One archived, one kept.")]))
    chat.approve("t_a")
    chat.approve("t_b", approved=False, reason="not B")
    calls_before = len(model.requests)
    await chat.submit()
    assert program_status(clean_db, first) == "archived"
    assert program_status(clean_db, second) == "active"
    assert [p["state"] for p in tool_parts(chat.assistant())] == [
        "output-available",
        "output-denied",
    ]
    # one resolution, one merged tool_result turn, the model asked once
    assert len(model.requests) == calls_before + 1
    assert len(_last_tool_result(model)) == 2


async def test_a_forged_approval_id_runs_nothing(
    chat: ChatClient, model: ScriptedModel, clean_db: str, org: Org
) -> None:
    program = add_program(clean_db, org, "Guarded")
    model.script.append(tool_reply(archive(program, "t_arch")))
    await chat.send("archive it")
    chat.approve("t_arch")
    chat.part("t_arch")["approval"]["id"] = "0" * 32  # not the card's fingerprint
    response = await chat.submit()
    failure = next(c for c in chat.last if c["type"] == "message-metadata")
    assert failure["messageMetadata"]["error"]["code"] == "confirmation_stale"
    assert response.status_code == 200 and "tool-output-available" not in types(chat.last)
    assert program_status(clean_db, program) == "active"
    assert audit_count(clean_db, "program.archived") == 0


async def test_a_stale_card_runs_nothing(
    chat: ChatClient, model: ScriptedModel, clean_db: str, org: Org
) -> None:
    """The card since re-asked with other arguments: the approval names what was shown."""
    program, other = add_program(clean_db, org, "One"), add_program(clean_db, org, "Two")
    model.script.append(tool_reply(archive(program, "t_arch")))
    await chat.send("archive one")
    stale = copy.deepcopy(chat.messages)
    with psycopg.connect(clean_db) as conn:  # the call now archives another program
        conn.execute(
            "UPDATE ai_tool_executions SET input = jsonb_set(input, '{args,programId}', %s)"
            " WHERE tool_use_id = 't_arch'",
            (json.dumps(str(other)),),
        )
    chat.messages = stale
    chat.approve("t_arch")
    await chat.submit()
    failure = next(c for c in chat.last if c["type"] == "message-metadata")
    assert failure["messageMetadata"]["error"]["code"] == "confirmation_stale"
    assert program_status(clean_db, other) == "active"


async def test_another_users_approval_runs_nothing(
    chat: ChatClient,
    model: ScriptedModel,
    http: httpx.AsyncClient,
    tokens: TokenFactory,
    clean_db: str,
    org: Org,
) -> None:
    program = add_program(clean_db, org, "Owner's")
    model.script += [tool_reply(archive(program, "t_arch")), Reply([Text("Hi admin.")])]
    await chat.send("archive it")
    chat.approve("t_arch")
    # the admin replays the owner's answered message in a chat of their own
    admin = ChatClient(http, bearer(tokens, org, "admin"))
    await admin.send("hello")
    admin.messages += copy.deepcopy(chat.messages[1:])
    await admin.submit()
    failure = next(c for c in admin.last if c["type"] == "message-metadata")
    assert failure["messageMetadata"]["error"]["code"] == "tool_execution_not_found"
    # and in the owner's chat: not found before anything starts
    intruding = ChatClient(http, admin.headers, chat_id=chat.chat_id, messages=chat.messages)
    response = await intruding.submit()
    assert response.status_code == 404
    assert program_status(clean_db, program) == "active"


async def test_a_double_submitted_approval_runs_once(
    chat: ChatClient, model: ScriptedModel, clean_db: str, org: Org
) -> None:
    program = add_program(clean_db, org, "Once")
    model.script += [tool_reply(archive(program, "t_arch")), Reply([Text("Done.")])]
    await chat.send("archive Once")
    chat.approve("t_arch")
    body = chat.body(message_id=chat.assistant()["id"])
    first, second = await asyncio.gather(chat.post(body), chat.post(body))
    assert program_status(clean_db, program) == "archived"
    assert audit_count(clean_db, "program.archived") == 1
    outcomes = []
    for response in (first, second):
        assert response.status_code == 200
        chunks = ui_chunks(response.text)
        failed = [c["messageMetadata"]["error"]["code"] for c in chunks if _is_error(c)]
        outcomes.append(failed[0] if failed else "ran")
    assert sorted(outcomes) in (
        ["conversation_busy", "ran"],
        ["ran", "tool_already_resolved"],
    )


def _is_error(chunk: dict[str, Any]) -> bool:
    return chunk["type"] == "message-metadata" and "error" in chunk["messageMetadata"]


async def test_a_picker_is_a_client_tool_answered_with_add_tool_output(
    chat: ChatClient, model: ScriptedModel
) -> None:
    model.script.append(tool_reply(ask("t_pick", "Strength", "Engine")))
    await chat.send("which program?")
    part = chat.part("t_pick")
    assert part["type"] == "tool-read_ask_user_to_pick" and part["state"] == "input-available"
    assert part["providerExecuted"] is None  # the app answers it
    assert [c["label"] for c in part["input"]["candidates"]] == ["Strength", "Engine"]
    assert chat.last[-1]["finishReason"] == "tool-calls"

    model.script.append(Reply([Text("Engine it is.")]))
    chat.answer("t_pick", {"id": "id_Engine"})
    await chat.submit()
    assert chat.part("t_pick")["output"] == {
        "pickedId": "id_Engine",
        "pickedLabel": "Engine",
        "kind": "other",
    }
    assert text(chat.assistant()).endswith("Engine it is.")
    assert "pickedLabel" in json.dumps(_last_tool_result(model))


async def test_a_pick_not_offered_is_refused(chat: ChatClient, model: ScriptedModel) -> None:
    model.script.append(tool_reply(ask("t_pick", "Strength", "Engine")))
    await chat.send("which program?")
    chat.answer("t_pick", "id_Somebody_else")
    await chat.submit()
    failure = next(c for c in chat.last if c["type"] == "message-metadata")
    assert failure["messageMetadata"]["error"]["code"] == "invalid_pick"
    # still waiting: a right answer goes through
    model.script.append(Reply([Text("Strength.")]))
    chat.answer("t_pick", "id_Strength")
    await chat.submit()
    assert chat.part("t_pick")["output"]["pickedId"] == "id_Strength"


async def test_a_picker_and_an_approval_of_one_message_are_answered_together(
    chat: ChatClient, model: ScriptedModel, clean_db: str, org: Org
) -> None:
    program = add_program(clean_db, org, "Old")
    model.script.append(tool_reply(ask("t_pick", "Strength", "Engine"), archive(program, "t_a")))
    await chat.send("pick and archive")
    model.script.append(Reply([Text("Both done.")]))
    chat.approve("t_a")
    chat.answer("t_pick", {"id": "id_Strength"})
    await chat.submit()
    assert program_status(clean_db, program) == "archived"
    assert [p["state"] for p in tool_parts(chat.assistant())] == ["output-available"] * 2


async def test_a_pick_already_taken_is_history_not_a_decision(
    chat: ChatClient, model: ScriptedModel, clean_db: str, org: Org
) -> None:
    """A picker answered first (the approval still waiting) is echoed by the next request: it
    is not decided again."""
    program = add_program(clean_db, org, "Old")
    model.script.append(tool_reply(ask("t_pick", "Strength", "Engine"), archive(program, "t_a")))
    await chat.send("pick and archive")
    chat.answer("t_pick", {"id": "id_Engine"})
    await chat.submit()  # the approval still waits: nothing to resume yet
    assert chat.part("t_pick")["state"] == "output-available"
    assert chat.last[-1]["finishReason"] == "tool-calls"
    model.script.append(Reply([Text("Archived.")]))
    chat.approve("t_a")
    await chat.submit()
    assert program_status(clean_db, program) == "archived"
    assert text(chat.assistant()) == "Archived."
    # the same echo once more: nothing left to decide
    again = await chat.submit()
    assert again.status_code == 409 and again.json()["code"] == "tool_already_resolved"
