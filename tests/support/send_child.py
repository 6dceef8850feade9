"""A send in its own process, to be killed mid-stream by a test.

`python -m tests.support.send_child <db url> <clerk org> <clerk user> <conversation> <mode>`
sends "keep going" into the conversation; the scripted model streams slowly (`stream`; `routed`:
after a quick route that declines with `ROUTE_USAGE`), asks for the `gate` test tool that
blocks (`tool`), or calls three reads at once and streams its answer to them slowly (`reads`). Each event's type is printed as it arrives, so
the parent kills the child at a known point.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from uuid import UUID

from spotter.agent.run import SendMessage, send_message
from spotter.auth import resolve_caller
from spotter.auth.clerk import SessionClaims
from spotter.db import Database
from spotter.providers.fake import FakeUsage, Reply, ScriptedModel, Text, ToolUse, tool_reply
from tests.support.agent import deps_for
from tests.support.hitl import gate_registry, stall
from tests.support.world import Org

ROOT = Path(__file__).resolve().parents[2]

SLOW_TEXT = "This answer streams slowly so that the test can kill it mid-stream. " * 4
SLOW_USAGE = FakeUsage(input_tokens=111, output_tokens=22)
ROUTE_USAGE = FakeUsage(input_tokens=333, output_tokens=2)


def script(mode: str) -> list[Reply]:
    if mode in ("stream", "routed"):
        return [Reply([Text(SLOW_TEXT)], delay_s=0.2, usage=SLOW_USAGE)]
    if mode == "reads":
        reads = [ToolUse("programs", {"action": "list", "args": {}}, id=f"rd{i}") for i in range(3)]
        slow = Reply([Text(SLOW_TEXT)], delay_s=0.2, usage=SLOW_USAGE)
        return [tool_reply(*reads, usage=SLOW_USAGE), slow]
    # a gate read held open: the kill lands during the tool's execution, after the model call
    return [tool_reply(stall("Killed", "tk1"), usage=SLOW_USAGE)]


async def kill_send_at(url: str, org: Org, conversation: UUID, mode: str, marker: str) -> list[str]:
    """Run the child's send as `org`'s owner; SIGKILL it once it printed a line starting with
    `marker`. Returns the lines it printed."""
    person = org["owner"]
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.support.send_child", url, org.clerk_org_id,
        person.clerk_user_id, str(conversation), mode,
        cwd=ROOT, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert child.stdout is not None
    seen: list[str] = []
    while not any(line.startswith(marker) for line in seen):
        line = await asyncio.wait_for(child.stdout.readline(), timeout=30)
        assert line, f"the child ended early: {seen}"
        seen.append(line.decode().strip())
    os.kill(child.pid, signal.SIGKILL)
    await child.wait()
    return seen


async def main(url: str, clerk_org: str, clerk_user: str, conversation: str, mode: str) -> None:
    db = await Database.open(url, max_size=2)
    caller = await resolve_caller(db, SessionClaims(clerk_user, clerk_org, None, None), "en")
    routed = [Reply([Text("LOOP")], usage=ROUTE_USAGE)] if mode == "routed" else []
    model = ScriptedModel(script(mode), lanes={"quick_route": routed} if routed else {})
    deps = deps_for(db, model, registry_for=gate_registry)
    request = SendMessage("keep going", "/dashboard", conversation_id=UUID(conversation))
    async for event in send_message(deps, caller, request):
        print(event.type, flush=True)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:6]))
