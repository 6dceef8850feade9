"""The AI SDK contract: what the chat endpoints stream, read by the pinned `ai` package's own
parser (`parseJsonEventStream` + `uiMessageChunkSchema`, as `DefaultChatTransport` reads it) and
message builder (`readUIMessageStream`, as `useChat` builds its messages): a plain turn, a tool
turn, a confirmation and its continuation, a rejection, a picker, an undo and a replay.

The packages are the example's locked ones (tests/support/node_packages.py: installed once per
lockfile outside the repository); without Node.js 20+ and npm this test fails and says so.
"""

from __future__ import annotations

import copy
import json
import subprocess
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from tests.integration.http.conftest import bearer
from tests.support.agent import long_conversation
from tests.support.chat import ChatClient, ui_chunks
from tests.support.hitl import add_program, archive, ask
from tests.support.node_packages import node, node_modules
from tests.support.tokens import TokenFactory
from tests.support.world import Org

PARSER = Path(__file__).parents[2] / "support" / "ai_sdk_parse.mjs"


@pytest.fixture(scope="session")
def ai_sdk() -> Path:
    return node_modules()


def parse(
    ai_sdk: Path, body: str, tmp_path: Path, message: dict[str, Any] | None = None
) -> dict[str, Any]:
    recorded = tmp_path / f"stream-{uuid.uuid4().hex}.txt"
    recorded.write_text(body)
    args = [node(), str(PARSER), str(ai_sdk), str(recorded)]
    if message is not None:
        start = tmp_path / f"message-{uuid.uuid4().hex}.json"
        start.write_text(json.dumps(message))
        args.append(str(start))
    done = subprocess.run(args, check=True, capture_output=True, text=True, timeout=60)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _answered(message: dict[str, Any], call_id: str, **fields: Any) -> dict[str, Any]:
    """The message as the SDK leaves it once the person answered (addToolApprovalResponse,
    addToolOutput): a copy, its call's part updated."""
    answered = copy.deepcopy(message)
    next(p for p in answered["parts"] if p.get("toolCallId") == call_id).update(fields)
    return answered


def parts_of(result: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [p for p in result["message"]["parts"] if p["type"] == kind]


async def test_a_plain_turn_reads_as_one_text_message(
    chat: ChatClient, model: ScriptedModel, ai_sdk: Path, tmp_path: Path
) -> None:
    model.script.append(Reply([Text("Three programs are active this month.")]))
    response = await chat.send("how many programs?")
    result = parse(ai_sdk, response.text, tmp_path)
    assert result["errors"] == []
    assert result["chunks"][0] == "start" and result["chunks"][-1] == "finish"
    [text] = parts_of(result, "text")
    assert text["text"] == "Three programs are active this month." and text["state"] == "done"
    assert result["message"]["id"] == chat.assistant()["id"]
    metadata = result["message"]["metadata"]
    assert metadata["conversationId"] and metadata["usage"]["outputTokens"] > 0


async def test_a_tool_turn_reads_as_a_part_of_its_action(
    chat: ChatClient, model: ScriptedModel, clean_db: str, org: Org, ai_sdk: Path, tmp_path: Path
) -> None:
    add_program(clean_db, org, "Strength")
    list_call = ToolUse("programs", {"action": "list", "args": {}}, id="t_list")
    model.script += [tool_reply(list_call), Reply([Text("You run Strength.")])]
    response = await chat.send("which programs?")
    result = parse(ai_sdk, response.text, tmp_path)
    assert result["errors"] == []
    [tool] = parts_of(result, "tool-programs_list")
    assert tool["toolCallId"] == "t_list" and tool["state"] == "output-available"
    assert tool["input"] == {"includeArchived": False} and tool["providerExecuted"] is True
    assert [p["name"] for p in tool["output"]["programs"]] == ["Strength"]
    assert tool["toolMetadata"]["router"] == "programs"
    assert parts_of(result, "text")[-1]["text"] == "You run Strength."
    assert result["chunks"].count("start-step") == result["chunks"].count("finish-step") == 2


async def test_an_approval_continues_the_message_in_place(
    chat: ChatClient, model: ScriptedModel, clean_db: str, org: Org, ai_sdk: Path, tmp_path: Path
) -> None:
    program = add_program(clean_db, org, "Old track")
    model.script.append(tool_reply(archive(program, "t_arch"), text="Archive it?"))
    asked = await chat.send("archive the old track")
    result = parse(ai_sdk, asked.text, tmp_path)
    assert result["errors"] == []
    [tool] = parts_of(result, "tool-programs_archive")
    assert tool["state"] == "approval-requested" and tool["toolCallId"] == "t_arch"
    assert tool["approval"]["descriptor"]["confirmation"]["target"] == "Old track"
    assert tool["input"] == {"programId": str(program)}
    # what addToolApprovalResponse leaves, and what sendAutomaticallyWhen posts
    approval = {**tool["approval"], "approved": True}
    answered = _answered(result["message"], "t_arch", state="approval-responded", approval=approval)
    model.script.append(Reply([Text("Archived.")]))
    chat.messages[-1] = copy.deepcopy(answered)
    continued = await chat.submit()
    after = parse(ai_sdk, continued.text, tmp_path, message=answered)
    assert after["errors"] == []
    assert after["message"]["id"] == answered["id"]
    tools = [p for p in after["message"]["parts"] if p["type"].startswith("tool-")]
    assert [(t["toolCallId"], t["state"]) for t in tools] == [("t_arch", "output-available")]
    assert tools[0]["approval"]["approved"] is True
    texts = [p["text"] for p in after["message"]["parts"] if p["type"] == "text"]
    assert texts == ["Archive it?", "Archived."]


async def test_a_rejection_reads_as_denied(
    chat: ChatClient, model: ScriptedModel, clean_db: str, org: Org, ai_sdk: Path, tmp_path: Path
) -> None:
    program = add_program(clean_db, org, "Kept")
    model.script += [tool_reply(archive(program, "t_arch")), Reply([Text("Left it.")])]
    await chat.send("archive it")
    chat.approve("t_arch", approved=False, reason="not now")
    answered = copy.deepcopy(chat.assistant())
    continued = await chat.submit()
    after = parse(ai_sdk, continued.text, tmp_path, message=answered)
    assert after["errors"] == []
    [tool] = parts_of(after, "tool-programs_archive")
    assert tool["state"] == "output-denied"
    assert tool["approval"]["reason"] == "not now"


async def test_a_picker_reads_as_a_client_tool_and_its_pick_as_its_output(
    chat: ChatClient, model: ScriptedModel, ai_sdk: Path, tmp_path: Path
) -> None:
    model.script.append(tool_reply(ask("t_pick", "Strength", "Engine")))
    asked = await chat.send("which?")
    result = parse(ai_sdk, asked.text, tmp_path)
    [picker] = parts_of(result, "tool-read_ask_user_to_pick")
    assert picker["state"] == "input-available" and "providerExecuted" not in picker
    assert [c["label"] for c in picker["input"]["candidates"]] == ["Strength", "Engine"]
    chosen = {"id": "id_Engine", "label": "Engine"}
    answered = _answered(result["message"], "t_pick", state="output-available", output=chosen)
    model.script.append(Reply([Text("Engine.")]))
    chat.messages[-1] = copy.deepcopy(answered)
    continued = await chat.submit()
    after = parse(ai_sdk, continued.text, tmp_path, message=answered)
    assert after["errors"] == []
    [picked] = parts_of(after, "tool-read_ask_user_to_pick")
    assert picked["output"]["pickedLabel"] == "Engine"


async def test_an_undo_reads_as_a_message_with_the_inverse(
    chat: ChatClient, model: ScriptedModel, ai_sdk: Path, tmp_path: Path
) -> None:
    create = ToolUse("programs", {"action": "create", "args": {"name": "Engine"}}, id="t_make")
    model.script += [tool_reply(create), Reply([Text("Made.")])]
    await chat.send("make Engine")
    response = await chat.http.post(f"/agent/chat/{chat.chat_id}/undo/t_make", headers=chat.headers)
    result = parse(ai_sdk, response.text, tmp_path)
    assert result["errors"] == []
    [inverse] = parts_of(result, "tool-programs_archive")
    assert inverse["toolCallId"] == "undo:t_make" and inverse["state"] == "output-available"
    assert inverse["toolMetadata"]["inverseAvailable"] is False


async def test_the_history_is_valid_ui_messages(
    chat: ChatClient, model: ScriptedModel, clean_db: str, org: Org, ai_sdk: Path, tmp_path: Path
) -> None:
    program = add_program(clean_db, org, "Old")
    model.script += [tool_reply(archive(program, "t_arch")), Reply([Text("Done.")])]
    await chat.send("archive Old")
    chat.approve("t_arch")
    await chat.submit()
    history = tmp_path / "history.json"
    history.write_text(json.dumps(await chat.history()))
    check = tmp_path / "validate.mjs"
    check.write_text(
        "import { readFileSync } from 'node:fs';\n"
        f"const ai = await import({json.dumps(str(ai_sdk / 'node_modules/ai/dist/index.js'))});\n"
        f"const messages = JSON.parse(readFileSync({json.dumps(str(history))}, 'utf8'));\n"
        "const result = await ai.safeValidateUIMessages({ messages });\n"
        "console.log(JSON.stringify({ ok: result.success, error: String(result.error ?? '') }));\n"
    )
    assert _validated(check) == {"ok": True, "error": ""}


def _validated(script: Path) -> dict[str, Any]:
    done = subprocess.run([node(), str(script)], capture_output=True, text=True, timeout=60)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


async def test_a_turn_that_compacts_after_done_reads_as_its_message_with_the_compaction(
    http: httpx.AsyncClient,
    tokens: TokenFactory,
    org: Org,
    model: ScriptedModel,
    clean_db: str,
    ai_sdk: Path,
    tmp_path: Path,
) -> None:
    """Issue 26 item 8: the compaction a settled turn runs after `done` rides the same stream
    (data-compaction, transient: `onData`'s) and the AI SDK still reads one assistant message.
    A conversation made elsewhere is reached with its own id as the chat id."""
    conversation = long_conversation(clean_db, org, exchanges=11, usage=None)
    chat = ChatClient(http, bearer(tokens, org), chat_id=str(conversation))
    model.script.append(Reply([Text("Here is the plan.")]))
    response = await chat.send("what next?")
    assert response.status_code == 200 and response.text.endswith("data: [DONE]\n\n")
    result = parse(ai_sdk, response.text, tmp_path)
    assert result["errors"] == []
    assert parts_of(result, "text")[-1]["text"] == "Here is the plan."
    assert "data-compaction" in result["chunks"] and result["chunks"][-1] == "finish"
    compaction = [c for c in ui_chunks(response.text) if c["type"] == "data-compaction"]
    assert compaction[-1]["data"]["status"] == "finished" and compaction[-1]["data"]["compacted"]
