"""The scripted fake speaks the streaming protocol the real SDK parses; errors map to codes."""

from __future__ import annotations

import asyncio

import anthropic
import pytest

from spotter.agent.errors import classify
from spotter.config import Settings
from spotter.errors import AuthError
from spotter.providers.anthropic import ProviderNotConfigured, build_client
from spotter.providers.fake import (
    FakeUsage,
    ProviderError,
    Reply,
    ScriptedModel,
    Text,
    Thinking,
    ToolUse,
)


async def test_the_sdk_reads_text_tool_use_thinking_and_usage_from_the_fake() -> None:
    usage = FakeUsage(input_tokens=5, output_tokens=42, cache_read_input_tokens=7,
                      cache_write_5m_tokens=3, cache_write_1h_tokens=2)  # fmt: skip
    model = ScriptedModel(
        [
            Reply(
                [
                    Thinking("hmm"),
                    Text("Hello there, friend."),
                    ToolUse("programs", {"action": "list", "args": {}}, id="t1"),
                ],
                stop_reason="tool_use",
                usage=usage,
            )
        ]
    )
    client = model.client()
    deltas = []
    async with client.messages.stream(
        model="claude-sonnet-5-5", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        async for event in stream:
            if event.type == "text":
                deltas.append(event.text)
        final = await stream.get_final_message()
    assert "".join(deltas) == "Hello there, friend."
    assert [b.type for b in final.content] == ["thinking", "text", "tool_use"]
    assert final.content[0].signature == "sig-fake"  # type: ignore[union-attr]
    assert final.content[2].input == {"action": "list", "args": {}}  # type: ignore[union-attr]
    assert final.stop_reason == "tool_use"
    assert final.usage.output_tokens == 42 and final.usage.cache_read_input_tokens == 7
    assert final.usage.cache_creation is not None
    assert final.usage.cache_creation.ephemeral_1h_input_tokens == 2
    assert final.usage.cache_creation_input_tokens == 5
    assert model.requests[0]["model"] == "claude-sonnet-5-5"
    assert model.streams_finished == 1


@pytest.mark.parametrize(
    "stop", ["end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal"]
)
async def test_every_stop_reason_reaches_the_sdk(stop: str) -> None:
    model = ScriptedModel([Reply([Text("x")], stop_reason=stop)])
    async with model.client().messages.stream(
        model="m", max_tokens=5, messages=[{"role": "user", "content": "q"}]
    ) as stream:
        final = await stream.get_final_message()
    assert final.stop_reason == stop


@pytest.mark.parametrize(
    ("status", "kind", "code"),
    [
        (400, "invalid_request_error", "provider_invalid_request"),
        (401, "authentication_error", "provider_unauthorized"),
        (403, "permission_error", "provider_unauthorized"),
        (429, "rate_limit_error", "provider_rate_limited"),
        (500, "api_error", "provider_unavailable"),
        (503, "overloaded_error", "provider_overloaded"),
        (529, "overloaded_error", "provider_overloaded"),
    ],
)
async def test_provider_errors_by_status(status: int, kind: str, code: str) -> None:
    model = ScriptedModel([ProviderError(status, kind)])
    with pytest.raises(anthropic.APIStatusError) as caught:
        async with model.client().messages.stream(
            model="m", max_tokens=5, messages=[{"role": "user", "content": "q"}]
        ) as stream:
            await stream.get_final_message()
    assert caught.value.status_code == status
    assert classify(caught.value) == code


def test_other_failures_classify() -> None:
    assert classify(asyncio.CancelledError()) == "aborted"
    assert classify(AuthError("token_expired", "x")) == "token_expired"
    assert classify(ProviderNotConfigured("no key")) == "provider_not_configured"
    assert classify(RuntimeError("boom")) == "internal"


def test_the_client_factory_refuses_to_guess() -> None:
    with pytest.raises(ProviderNotConfigured):
        build_client(Settings(environment="dev"))
    with pytest.raises(ProviderNotConfigured):
        build_client(Settings(environment="production", spotter_fake_model=True))
    assert build_client(Settings(environment="dev", spotter_fake_model=True)) is not None
    client = build_client(
        Settings(environment="dev", anthropic_api_key="k", anthropic_base_url="http://x")
    )
    assert isinstance(client, anthropic.AsyncAnthropic) and str(client.base_url).startswith(
        "http://x"
    )
