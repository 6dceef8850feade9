"""The prompt cache: every request extends the previous one byte for byte, across runs too; the
quick route's prefix crosses Haiku's caching minimum, so its next call reads it."""

from __future__ import annotations

import itertools

import psycopg

from spotter.agent import events as ev
from spotter.agent.cost.model_policy import FAST_MODEL
from spotter.agent.cost.pricing import CallTokens, cost_usd_micros
from spotter.agent.prompting.day_grain_prompt import DAY_GRAIN_PROMPT
from spotter.agent.transcript.replay import canonical
from spotter.db import Database
from spotter.providers.fake import FakeUsage, Reply, ScriptedModel, Text, ToolUse, tool_reply
from tests.support.agent import (
    compact,
    conversation_id_of,
    deps_for,
    prefix_parts,
    run_turn,
    stored_messages,
)
from tests.support.callers import caller_for
from tests.support.prompt_cache import PromptCache
from tests.support.world import Org


def _extends(earlier: list[bytes], later: list[bytes]) -> bool:
    return len(later) > len(earlier) and later[: len(earlier)] == earlier


async def test_back_to_back_runs_extend_the_previous_prefix_byte_for_byte(
    db: Database, org: Org
) -> None:
    list_call = ToolUse("programs", {"action": "list", "args": {}}, id="t_list")
    model = ScriptedModel(
        [
            tool_reply(list_call, text="Looking."),
            Reply([Text("You have no programs.")]),
            Reply([Text("Sure.")]),
            Reply([Text("Again.")]),
        ]
    )
    owner = await caller_for(db, org, "owner")
    deps = deps_for(db, model)
    cid = conversation_id_of(await run_turn(deps, owner, "what programs do I have?"))
    await run_turn(deps, owner, "make one later", conversation_id=cid)
    await run_turn(deps, owner, "and then?", conversation_id=cid, selection={"leadId": "x"})

    prefixes = [prefix_parts(body) for body in model.requests]
    for earlier, later in itertools.pairwise(prefixes):
        assert _extends(earlier, later)
    # and those are the very bytes on the wire (the tail aside, which carries the moving marker)
    for raw, body in zip(model.raw_requests, model.requests, strict=True):
        for part in [body["tools"], body["system"], *body["messages"][:-1]]:
            assert compact(part) in raw


async def test_replaying_a_stored_conversation_rebuilds_the_same_request(
    db: Database, org: Org, clean_db: str
) -> None:
    model = ScriptedModel([Reply([Text("one")]), Reply([Text("two")])])
    owner = await caller_for(db, org, "owner")
    deps = deps_for(db, model)
    cid = conversation_id_of(await run_turn(deps, owner, "first"))
    await run_turn(deps, owner, "second", conversation_id=cid)
    # what was stored, replayed as is, is exactly what the second request carried
    stored = [{"role": m["role"], "content": m["content"]} for m in stored_messages(clean_db, cid)]
    sent = prefix_parts(model.requests[1])[2:]
    assert sent == [compact(canonical(m)) for m in stored[:3]]


async def test_day_grain_orgs_get_the_day_grain_block_in_the_static_prompt(
    db: Database, org: Org, clean_db: str
) -> None:
    model = ScriptedModel([Reply([Text("a")]), Reply([Text("b")])])
    owner = await caller_for(db, org, "owner")
    await run_turn(deps_for(db, model), owner, "hi")
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "UPDATE organizations SET day_grain_programming = true WHERE id = %s", (org.id,)
        )
    day_grain_owner = await caller_for(db, org, "owner")
    await run_turn(deps_for(db, model), day_grain_owner, "hi")
    plain, grain = (body["system"][0]["text"] for body in model.requests)
    assert grain == f"{plain}\n\n{DAY_GRAIN_PROMPT}"
    assert DAY_GRAIN_PROMPT not in plain


async def test_a_run_only_appends_to_the_stored_history(
    db: Database, org: Org, clean_db: str
) -> None:
    list_call = ToolUse("programs", {"action": "list", "args": {}}, id="t1")
    model = ScriptedModel([tool_reply(list_call), Reply([Text("a")]), Reply([Text("b")])])
    owner = await caller_for(db, org, "owner")
    deps = deps_for(db, model)
    cid = conversation_id_of(await run_turn(deps, owner, "first"))
    before = stored_messages(clean_db, cid)
    await run_turn(deps, owner, "second", conversation_id=cid)
    after = stored_messages(clean_db, cid)
    assert after[: len(before)] == before
    assert [m["role"] for m in after[len(before) :]] == ["user", "assistant"]


def _haiku_cost(usage: FakeUsage) -> int:
    tokens = CallTokens(
        input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_input_tokens,
        cache_write_5m_tokens=usage.cache_write_5m_tokens,
    )  # fmt: skip
    return cost_usd_micros(FAST_MODEL, tokens)


async def test_the_quick_route_prefix_is_cached_and_the_next_call_reads_it(
    db: Database, org: Org, other_org: Org
) -> None:
    """Issue 26 item 3: the router's tools + system block cross Haiku 4.5's 4,096-token
    minimum, so the first call writes the entry and the second call in the conversation reads
    it — and so does another org's, whose prefix is the same bytes."""
    cache = PromptCache()
    model = ScriptedModel([Reply([Text(t)]) for t in ("one", "two", "three")])
    model.lanes["quick_route"] = [cache.answering("LOOP") for _ in range(3)]
    owner = await caller_for(db, org, "owner")
    deps = deps_for(db, model)
    cid = conversation_id_of(await run_turn(deps, owner, "what is new?"))
    second = await run_turn(deps, owner, "and this week?", conversation_id=cid)
    await run_turn(deps, await caller_for(db, other_org, "owner"), "what is new?")

    wrote, read, theirs = cache.reported
    assert wrote.cache_write_5m_tokens >= 4_096 and wrote.cache_read_input_tokens == 0
    assert read.cache_read_input_tokens == wrote.cache_write_5m_tokens, "the second call reads it"
    assert read.cache_write_5m_tokens == 0 and read.input_tokens < 200, "only the turn is fresh"
    assert theirs.cache_read_input_tokens == wrote.cache_write_5m_tokens, "shared across orgs"
    done = second[-1]
    assert isinstance(done, ev.Done) and done.usage.cache_read_tokens >= 4_096
    # what the read saves: the same prefix sent uncached (as before) costs several times more
    uncached = FakeUsage(
        input_tokens=read.input_tokens + read.cache_read_input_tokens,
        output_tokens=read.output_tokens,
    )
    assert _haiku_cost(read) * 3 < _haiku_cost(uncached) < _haiku_cost(wrote)
