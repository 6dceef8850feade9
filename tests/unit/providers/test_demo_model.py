"""The offline demo model: it answers the console's suggested prompts with their flows, reads a
run like a model does, and never outranks a real provider."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic
import pytest

from spotter import cli
from spotter.config import Settings
from spotter.providers import demo
from spotter.providers.anthropic import ProviderNotConfigured, build_client
from spotter.providers.fake import Text, ToolUse

CATALOGS = Path(demo.__file__).parents[1] / "devconsole" / "static" / "i18n"
FLOWS: dict[str, Callable[[demo.Turn], demo.Reply]] = {
    "schedule": demo.schedule_flow,
    "cancel": demo.cancel_flow,
    "saar": demo.saar_flow,
    "batch": demo.batch_flow,
    "overview": demo.overview_flow,
    "plain": demo.plain_flow,
    "long": demo.ambient_flow,
    "unknown": demo.unknown_flow,
}
CONTEXT = (
    "<turn_context>\nCurrent date & time in org timezone (Asia/Jerusalem): Tuesday 2026-12-01"
    " 10:00 (UTC+0200)\nCaller's preferred locale: {locale}\n<page_context>\npathname: /x\n"
    "</page_context>\n{ambient}</turn_context>"
)


def catalog(locale: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((CATALOGS / f"{locale}.json").read_text())
    return data


def loop_body(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "system": [{"type": "text", "text": "s"}, {"type": "text", "text": "o"}],
        "messages": messages,
    }


def user(text: str, locale: str = "en", ambient: str = "") -> dict[str, Any]:
    context = CONTEXT.format(locale=locale, ambient=ambient)
    return {
        "role": "user",
        "content": [{"type": "text", "text": text}, {"type": "text", "text": context}],
    }


@pytest.mark.parametrize("locale", ["en", "he", "ru"])
@pytest.mark.parametrize("prompt", sorted(FLOWS))
def test_every_suggested_prompt_starts_its_flow_in_every_locale(locale: str, prompt: str) -> None:
    assert demo.flow_for(catalog(locale)[f"prompt.{prompt}"]) is FLOWS[prompt]


def test_the_console_catalogs_have_the_same_keys() -> None:
    assert set(catalog("he")) == set(catalog("en")) == set(catalog("ru"))


def test_a_cancel_first_reads_the_day_then_asks_to_cancel_the_evening_class() -> None:
    first = demo.answer(loop_body([user("Cancel tomorrow's 18:00 CrossFit class")]))
    read = next(b for b in first.blocks if isinstance(b, ToolUse))
    assert (read.name, read.input) == (
        "read",
        {"action": "schedule", "args": {"days": {"first": "2026-12-02"}}},
    )
    sessions = [
        {
            "id": "s1",
            "classType": "CrossFit",
            "start": "07:00",
            "date": "2026-12-02",
            "status": "published",
            "booked": 3,
        },
        {
            "id": "s2",
            "classType": "CrossFit",
            "start": "18:00",
            "date": "2026-12-02",
            "status": "published",
            "booked": 12,
        },
    ]
    result = {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": json.dumps({"sessions": sessions}),
    }
    messages = [
        user("Cancel tomorrow's 18:00 CrossFit class"),
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "read", "input": read.input}],
        },
        {"role": "user", "content": [result]},
    ]
    second = demo.answer(loop_body(messages))
    cancel = next(b for b in second.blocks if isinstance(b, ToolUse))
    assert cancel.name == "class_sessions" and cancel.input["action"] == "cancel"
    assert cancel.input["args"]["sessionIds"] == ["s2"]


def test_a_rejected_cancel_is_answered_in_the_callers_locale() -> None:
    messages = [
        user("בטל את שיעור ה-CrossFit של מחר ב-18:00", locale="he"),
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "t1",
                    "name": "class_sessions",
                    "input": {"action": "cancel", "args": {"sessionIds": ["s2"]}},
                }
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "is_error": True,
                    "content": json.dumps({"code": "rejected_by_user"}),
                }
            ],
        },
    ]
    reply = demo.answer(loop_body(messages))
    assert reply.blocks == [Text(demo._STRINGS["he"]["kept"])]


def test_a_long_message_is_answered_with_its_ambient_context_without_ids() -> None:
    ambient = "<ambient_context>\nPossibly relevant records:\n- member 'Saar Cohen' id=abc\n</ambient_context>\n"
    reply = demo.answer(loop_body([user("x" * 300, ambient=ambient)]))
    text = reply.blocks[0]
    assert (
        isinstance(text, Text)
        and "- member 'Saar Cohen'" in text.text
        and "id=abc" not in text.text
    )


def test_anything_else_says_it_is_the_offline_demo_model_and_how_to_configure_one() -> None:
    reply = demo.answer(loop_body([user("How do I deadlift?")]))
    text = reply.blocks[0]
    assert (
        isinstance(text, Text)
        and "offline demo model" in text.text
        and "ANTHROPIC_API_KEY" in text.text
    )


def test_side_calls_get_a_declining_router_and_a_title() -> None:
    router = demo.answer(
        {"system": [{"type": "text", "text": "r"}], "tools": [{}], "messages": [user("hi")]}
    )
    assert router.blocks == [Text("LOOP")]
    title = demo.answer(
        {
            "system": "t",
            "messages": [
                {
                    "role": "user",
                    "content": "<message>\nBook Saar into tomorrow's class please\n</message>\nTitle:",
                }
            ],
        }
    )
    assert title.blocks == [Text("Book Saar into tomorrow's class please")]


def test_a_real_key_wins_over_the_demo_model() -> None:
    client = build_client(
        Settings(environment="dev", spotter_fake_model=True, anthropic_api_key="sk-real")
    )
    assert isinstance(client, anthropic.AsyncAnthropic) and client.api_key == "sk-real"


def test_the_demo_model_is_refused_in_production_even_beside_a_key() -> None:
    with pytest.raises(ProviderNotConfigured):
        build_client(
            Settings(environment="production", spotter_fake_model=True, anthropic_api_key="k")
        )


def test_spotter_dev_turns_the_demo_model_on_without_a_provider(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SPOTTER_FAKE_MODEL", raising=False)
    said = cli._model_announcement(Settings(anthropic_api_key=None, model_provider="anthropic"))
    assert "OFFLINE DEMO MODEL" in said
    assert Settings().spotter_fake_model is True  # set for the server it starts


def test_spotter_dev_announces_a_real_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SPOTTER_FAKE_MODEL", raising=False)
    said = cli._model_announcement(Settings(anthropic_api_key="k", model_provider="anthropic"))
    assert said == "Model: the Anthropic API."
    assert "SPOTTER_FAKE_MODEL" not in __import__("os").environ


def test_spotter_dev_leaves_the_demo_model_off_when_told(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPOTTER_FAKE_MODEL", "0")
    said = cli._model_announcement(Settings(anthropic_api_key=None, model_provider="anthropic"))
    assert "provider_not_configured" in said
