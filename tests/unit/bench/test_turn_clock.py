"""The benchmark's split of a model call's wall time (bench/turn_clock.py): the fake server's
work is never counted as the model client's, whichever way the SDK is called."""

from __future__ import annotations

import json
import time
from typing import Any

from anthropic._streaming import AsyncStream

from spotter.providers.fake import Reply, ScriptedModel, Text
from tests.support.bench import bench_module

turn_clock = bench_module("turn_clock")

SERVER_WORK_S = 0.05
REQUEST = {
    "model": "claude-sonnet-5-5",
    "max_tokens": 64,
    "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
}


def _slow_server() -> ScriptedModel:
    def answer(body: dict[str, Any]) -> Reply:
        # busy, not asleep: the time is spent running the fake server's code
        until = time.perf_counter() + SERVER_WORK_S
        while time.perf_counter() < until:
            pass
        return Reply([Text("a reply long enough to stream in several deltas")])

    return ScriptedModel(script=[answer])


def _assert_split(spent: dict[str, float], elapsed_ms: float) -> None:
    assert spent["fake_ms"] >= SERVER_WORK_S * 1000
    assert spent["model_ms"] > 0
    # the buckets partition wall time: the server's work cannot also be in the client's
    assert spent["model_ms"] + spent["fake_ms"] + spent["db_ms"] <= elapsed_ms + 0.01


async def test_the_messages_stream_helper_is_model_time_without_the_server_work() -> None:
    client = _slow_server().client()
    clock = turn_clock.TurnClock()
    with clock.installed():
        clock.restart()
        started = time.perf_counter()
        async with client.messages.stream(**REQUEST) as stream:
            async for _ in stream:
                pass
            final = await stream.get_final_message()
        elapsed_ms = (time.perf_counter() - started) * 1000
        spent = clock.read()
    assert final.content[0].type == "text"
    _assert_split(spent, elapsed_ms)


async def test_a_raw_post_stream_is_model_time_without_the_server_work() -> None:
    client = _slow_server().client()
    clock = turn_clock.TurnClock()
    with clock.installed():
        clock.restart()
        started = time.perf_counter()
        stream = await client.post(
            "/v1/messages",
            content=json.dumps({**REQUEST, "stream": True}).encode(),
            options={"headers": {"content-type": "application/json"}},
            cast_to=object,
            stream=True,
            stream_cls=AsyncStream[object],
        )
        events = [event async for event in stream]
        elapsed_ms = (time.perf_counter() - started) * 1000
        spent = clock.read()
    assert events[-1] == {"type": "message_stop"}
    _assert_split(spent, elapsed_ms)


def test_leaving_the_clock_restores_the_sdk() -> None:
    before = AsyncStream.__dict__["__anext__"]
    with turn_clock.TurnClock().installed():
        assert AsyncStream.__dict__["__anext__"] is not before
    assert AsyncStream.__dict__["__anext__"] is before
