"""A resolution in its own process, to be killed mid-execution by a test.

`python -m tests.support.hitl_child <db url> <clerk org> <clerk user> <conversation> <toolUseId>`
confirms the call with the `gate` test tools; `gate.*` prints `HOLDING <label>` and blocks.
"""

from __future__ import annotations

import asyncio
import sys
from uuid import UUID

from spotter.agent.run import resolve as resolution
from spotter.auth import resolve_caller
from spotter.auth.clerk import SessionClaims
from spotter.db import Database
from spotter.providers.fake import ScriptedModel
from tests.support.agent import deps_for
from tests.support.hitl import gate_registry


async def main(url: str, clerk_org: str, clerk_user: str, conversation: str, tool: str) -> None:
    db = await Database.open(url, max_size=2)
    caller = await resolve_caller(db, SessionClaims(clerk_user, clerk_org, None, None), "en")
    deps = deps_for(db, ScriptedModel(), registry_for=gate_registry)
    async for event in resolution.confirm(deps, caller, UUID(conversation), tool, True):
        print(event.type, flush=True)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:6]))
