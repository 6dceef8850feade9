"""The AI SDK contract: a recorded Spotter stream (`?protocol=ai-sdk`) read by the `ai` npm
package's own parser and message builder, for a plain turn, a tool turn and a confirmation.

The pinned `ai` is installed once into a cache folder outside the repository (shared by runs
and workers; `SPOTTER_NODE_CACHE` moves it), so `make test` stays fast after the first run.
Node.js 20+ and npm must be on PATH: without them this test fails and says so.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from spotter.providers.fake import Reply, ScriptedModel, Text, ToolUse, tool_reply
from tests.support.agent import long_conversation
from tests.support.hitl import add_program
from tests.support.tokens import TokenFactory
from tests.support.world import Org

AI_VERSION = "7.0.173"
PARSER = Path(__file__).parents[2] / "support" / "ai_sdk_parse.mjs"


def _cache() -> Path:
    root = os.environ.get("SPOTTER_NODE_CACHE") or Path.home() / ".cache" / "spotter"
    return Path(root) / f"ai-sdk-{AI_VERSION}"


@pytest.fixture(scope="session")
def ai_sdk() -> Path:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.fail(
            "The AI SDK contract test needs Node.js 20+ and npm on PATH (to run the `ai`"
            f" package's own parser, ai@{AI_VERSION}); install Node.js and run again."
        )
    folder = _cache()
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one worker installs, the others wait and reuse it
        if not (folder / "node_modules" / "ai" / "package.json").exists():
            (folder / "package.json").write_text('{"private": true, "type": "module"}\n')
            subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--silent", f"ai@{AI_VERSION}"],
                cwd=folder, check=True, capture_output=True, timeout=300,
            )  # fmt: skip
    return folder


def parse(ai_sdk: Path, body: bytes, tmp_path: Path) -> dict[str, Any]:
    recorded = tmp_path / f"stream-{uuid.uuid4().hex}.txt"
    recorded.write_bytes(body)
    done = subprocess.run(
        ["node", str(PARSER), str(ai_sdk), str(recorded)],
        check=True, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _headers(tokens: TokenFactory, org: Org) -> dict[str, str]:
    token = tokens.token(org["owner"].clerk_user_id, org.clerk_org_id)
    return {"authorization": f"Bearer {token}"}


async def _send(client: httpx.AsyncClient, headers: dict[str, str], text: str) -> httpx.Response:
    body = {"text": text, "pageContext": {"pathname": "/programs"}}
    response = await client.post(
        "/agent/messages", params={"protocol": "ai-sdk"}, json=body, headers=headers
    )
    assert response.status_code == 200
    assert response.headers["x-vercel-ai-ui-message-stream"] == "v1"
    assert response.text.endswith("data: [DONE]\n\n")
    return response


def parts_of(result: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [p for p in result["message"]["parts"] if p["type"] == kind]


async def test_a_plain_turn_reads_as_one_text_message(
    agent_client: httpx.AsyncClient,
    model: ScriptedModel,
    tokens: TokenFactory,
    org: Org,
    ai_sdk: Path,
    tmp_path: Path,
) -> None:
    model.script.append(Reply([Text("Three programs are active this month.")]))
    response = await _send(agent_client, _headers(tokens, org), "how many programs?")
    result = parse(ai_sdk, response.content, tmp_path)
    assert result["errors"] == []
    assert result["chunks"][0] == "start" and result["chunks"][-1] == "finish"
    [text] = parts_of(result, "text")
    assert text["text"] == "Three programs are active this month." and text["state"] == "done"
    [usage] = parts_of(result, "data-usage")
    assert usage["data"]["outputTokens"] > 0
    assert parts_of(result, "data-conversation")[0]["data"]["conversationId"]


async def test_a_tool_turn_reads_as_a_tool_part_with_its_output(
    agent_client: httpx.AsyncClient,
    model: ScriptedModel,
    tokens: TokenFactory,
    org: Org,
    clean_db: str,
    ai_sdk: Path,
    tmp_path: Path,
) -> None:
    add_program(clean_db, org, "Strength")
    list_call = ToolUse("programs", {"action": "list", "args": {}}, id="t_list")
    model.script += [tool_reply(list_call), Reply([Text("You run Strength.")])]
    response = await _send(agent_client, _headers(tokens, org), "which programs?")
    result = parse(ai_sdk, response.content, tmp_path)
    assert result["errors"] == []
    [tool] = parts_of(result, "tool-programs")
    assert tool["toolCallId"] == "t_list" and tool["state"] == "output-available"
    assert tool["input"]["action"] == "list"
    assert [p["name"] for p in tool["output"]["programs"]] == ["Strength"]
    assert parts_of(result, "text")[-1]["text"] == "You run Strength."
    assert result["chunks"].count("start-step") == result["chunks"].count("finish-step") == 2


async def test_a_confirmation_reads_as_an_approval_request_bound_to_its_fingerprint(
    agent_client: httpx.AsyncClient,
    model: ScriptedModel,
    tokens: TokenFactory,
    org: Org,
    clean_db: str,
    ai_sdk: Path,
    tmp_path: Path,
) -> None:
    program = add_program(clean_db, org, "Old track")
    archive = ToolUse(
        "programs", {"action": "archive", "args": {"programId": str(program)}}, id="t_arch"
    )
    model.script.append(tool_reply(archive))
    response = await _send(agent_client, _headers(tokens, org), "archive the old track")
    result = parse(ai_sdk, response.content, tmp_path)
    assert result["errors"] == []
    [tool] = parts_of(result, "tool-programs")
    assert tool["state"] == "approval-requested" and tool["toolCallId"] == "t_arch"
    [card] = parts_of(result, "data-confirmation")
    assert card["data"]["confirmation"]["target"] == "Old track"
    assert tool["approval"]["id"] == card["data"]["fingerprint"]


async def test_a_turn_that_compacts_after_done_reads_as_its_message_with_the_compaction(
    agent_client: httpx.AsyncClient,
    model: ScriptedModel,
    tokens: TokenFactory,
    org: Org,
    clean_db: str,
    ai_sdk: Path,
    tmp_path: Path,
) -> None:
    """Issue 26 item 8: the compaction a settled turn runs after `done` rides the same stream
    (data-compaction, updated in place) and the AI SDK still reads one assistant message."""
    conversation = long_conversation(clean_db, org, exchanges=11, usage=None)
    model.script.append(Reply([Text("Here is the plan.")]))
    body = {"text": "what next?", "conversationId": conversation, "pageContext": {"pathname": "/"}}
    response = await agent_client.post(
        "/agent/messages", params={"protocol": "ai-sdk"}, json=body, headers=_headers(tokens, org)
    )
    assert response.status_code == 200 and response.text.endswith("data: [DONE]\n\n")
    result = parse(ai_sdk, response.content, tmp_path)
    assert result["errors"] == []
    assert parts_of(result, "text")[-1]["text"] == "Here is the plan."
    [compaction] = parts_of(result, "data-compaction")
    assert compaction["data"]["status"] == "finished" and compaction["data"]["compacted"]
