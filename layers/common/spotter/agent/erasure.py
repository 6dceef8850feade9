"""The assistant's records in a member's erasure (`domain.erasure`, which cannot import the
agent, runs this area's step through `register_area`): the person's own conversations go, and
every other record keeps its shape with each mention of them `[erased]` — conversation titles,
stored turns and the pages they were sent from, the stream log `GET …/stream` replays, tool
calls of every channel (input, output, error, card) and undos. Each table's statement is its
owning module's.

Imported by what can run an erasure (a resolution, `agent.run.resolve`; an MCP call,
`mcp.calls`); `domain.erasure` refuses to erase without it.
"""

from __future__ import annotations

from spotter.agent.approvals import undo
from spotter.agent.executions import erase_mentions as erase_from_calls
from spotter.agent.stream import log
from spotter.agent.transcript import history, message_log
from spotter.db.scope import OrgScope
from spotter.domain.erasure import ErasedPerson, register_area


@register_area("agent")
async def erase_from_agent_records(scope: OrgScope, person: ErasedPerson) -> None:
    conn, org_id, mentions = scope.conn, scope.org_id, person.mentions
    await history.erase_person(conn, org_id, person.user_id, mentions)
    await message_log.erase_mentions(conn, org_id, mentions)
    await log.erase_mentions(conn, org_id, mentions)
    await erase_from_calls(conn, org_id, mentions)
    await undo.erase_mentions(conn, org_id, mentions)
