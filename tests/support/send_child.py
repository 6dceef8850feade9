"""A send in its own process, to be killed mid-stream by a test.

`python -m tests.support.send_child <db url> <clerk org> <clerk user> <conversation> <mode>`
sends "keep going" into the conversation; the scripted model streams slowly (`stream`) or asks
for the `gate` test tool that blocks (`tool`). Each event's type is printed as it arrives, so
the parent kills the child at a known point.
"""

from __future__ import annotations

import asyncio
import sys
from uuid import UUID

from spotter.agent.run import SendMessage, send_message
from spotter.auth import resolve_caller
from spotter.auth.clerk import SessionClaims
from spotter.db import Database
from spotter.providers.fake import FakeUsage, Reply, ScriptedModel, Text, tool_reply
from tests.support.agent import deps_for
from tests.support.hitl import gate_registry, stall

SLOW_TEXT = "This answer streams slowly so that the test can kill it mid-stream. " * 4
SLOW_USAGE = FakeUsage(input_tokens=111, output_tokens=22)


def script(mode: str) -> list[Reply]:
    if mode == "stream":
        return [Reply([Text(SLOW_TEXT)], delay_s=0.2, usage=SLOW_USAGE)]
    # a gate read held open: the kill lands during the tool's execution, after the model call
    return [tool_reply(stall("Killed", "tk1"), usage=SLOW_USAGE)]


async def main(url: str, clerk_org: str, clerk_user: str, conversation: str, mode: str) -> None:
    db = await Database.open(url, max_size=2)
    caller = await resolve_caller(db, SessionClaims(clerk_user, clerk_org, None, None), "en")
    deps = deps_for(db, ScriptedModel(script(mode)), registry_for=gate_registry)
    request = SendMessage("keep going", "/dashboard", conversation_id=UUID(conversation))
    async for event in send_message(deps, caller, request):
        print(event.type, flush=True)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:6]))
