"""The offline demo model: it answers the console's suggested prompts with their flows, reads a
run like a model does, and never outranks a real provider."""

from __future__ import annotations

import itertools
import json
import re
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
from spotter.tools.registry import registry_for

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


def loop_body(messages: list[dict[str, Any]], role: str = "owner") -> dict[str, Any]:
    """The loop's request as the orchestrator sends it: the role's tools, the org block naming
    the caller's role, the messages."""
    return {
        "tools": registry_for(role, False, True).definitions,  # type: ignore[arg-type]
        "system": [
            {"type": "text", "text": "s"},
            {"type": "text", "text": f"<org>\nCaller: Demo ({'role'}: {role})\n</org>"},
        ],
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
    # a count's forms are the locale's own CLDR categories (Russian's few/many, Hebrew's two)
    def keys(locale: str) -> set[str]:
        return {re.sub(r"\.(zero|one|two|few|many|other)$", "", k) for k in catalog(locale)}

    assert keys("he") == keys("en") == keys("ru")
    assert {k for k in catalog("ru") if k.startswith("reads.line.")} == {
        "reads.line.one", "reads.line.few", "reads.line.many", "reads.line.other",
    }  # fmt: skip


def test_words_typed_past_a_waiting_picker_start_their_own_flow() -> None:
    """Replay joins the superseded picker's result and the new words into one user message."""
    picker = {"action": "ask_user_to_pick", "args": {"kind": "member", "prompt": "Which Saar?",
              "candidates": [{"id": "a", "label": "A"}, {"id": "b", "label": "B"}]}}  # fmt: skip
    superseded = {"type": "tool_result", "tool_use_id": "p1", "is_error": True,
                  "content": json.dumps({"code": "superseded"})}  # fmt: skip
    typed = user(CANCEL)
    messages = [
        user("Book Saar into tomorrow's 07:00 CrossFit"),
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "p1", "name": "read", "input": picker}],
        },
        {"role": "user", "content": [superseded, *typed["content"]]},
    ]
    assert demo.read_turn(loop_body(messages)).text == CANCEL
    reads = tool_uses(demo.answer(loop_body(messages)))
    assert [u.input["action"] for u in reads] == ["class_types", "schedule"]


TOMORROW = "2026-12-02"
TOOL_IDS = itertools.count(1)
CLASS_TYPES = [
    {"id": f"t{i}", "name": n} for i, n in enumerate(("CrossFit", "Open Gym", "Barbell Club"))
]


def session(sid: str, class_type: str, start: str, **fields: Any) -> dict[str, Any]:
    return {"id": sid, "classType": class_type, "start": start, "date": TOMORROW,
            "status": "published", "booked": 3, "capacity": 12, **fields}  # fmt: skip


def answered(
    calls: list[tuple[str, dict[str, Any], Any]], *, ok: bool = True
) -> list[dict[str, Any]]:
    """An assistant turn with these calls and the user turn answering each with its payload."""
    ids = [f"t{next(TOOL_IDS)}" for _ in calls]
    uses = [
        {"type": "tool_use", "id": i, "name": router, "input": tool_input}
        for i, (router, tool_input, _) in zip(ids, calls, strict=True)
    ]
    results = [
        {
            "type": "tool_result",
            "tool_use_id": i,
            "content": json.dumps(payload),
            **({} if ok else {"is_error": True}),
        }
        for i, (_, _, payload) in zip(ids, calls, strict=True)
    ]
    return [{"role": "assistant", "content": uses}, {"role": "user", "content": results}]


def class_reads(sessions: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], Any]]:
    return [
        ("read", {"action": "class_types", "args": {}}, {"classTypes": CLASS_TYPES}),
        (
            "read",
            {"action": "schedule", "args": {"days": {"first": TOMORROW}}},
            {"sessions": sessions},
        ),
    ]


def tool_uses(reply: demo.Reply) -> list[ToolUse]:
    return [b for b in reply.blocks if isinstance(b, ToolUse)]


def said(reply: demo.Reply) -> str:
    return "".join(b.text for b in reply.blocks if isinstance(b, Text))


CANCEL = "Cancel tomorrow's 18:00 CrossFit class"


def test_a_cancel_first_reads_the_class_types_and_the_day() -> None:
    first = demo.answer(loop_body([user(CANCEL)]))
    assert [(u.name, u.input) for u in tool_uses(first)] == [
        ("read", {"action": "class_types", "args": {}}),
        ("read", {"action": "schedule", "args": {"days": {"first": TOMORROW}}}),
    ]


def test_a_cancel_asks_to_cancel_exactly_the_class_the_words_name() -> None:
    sessions = [session("s1", "CrossFit", "07:00"), session("s2", "CrossFit", "18:00", booked=12),
                session("s3", "Barbell Club", "19:30", booked=8)]  # fmt: skip
    reply = demo.answer(loop_body([user(CANCEL), *answered(class_reads(sessions))]))
    (cancel,) = tool_uses(reply)
    assert cancel.name == "class_sessions" and cancel.input["action"] == "cancel"
    assert cancel.input["args"]["sessionIds"] == ["s2"]
    assert "CrossFit at 18:00 on Wed 2 Dec" in said(reply) and "12 people" in said(reply)


def test_a_cancel_names_the_waitlist_it_releases_as_the_card_counts_it() -> None:
    sessions = [session("s2", "CrossFit", "18:00", booked=12, waitlisted=3)]
    reply = demo.answer(loop_body([user(CANCEL), *answered(class_reads(sessions))]))
    assert said(reply) == (
        "This cancels CrossFit at 18:00 on Wed 2 Dec for the 12 people booked in it and the 3"
        " on its waitlist; please confirm."
    )


def test_a_cancelled_class_is_not_replaced_by_another_and_the_reply_says_so() -> None:
    sessions = [session("s2", "CrossFit", "18:00", status="cancelled", booked=0),
                session("s3", "Barbell Club", "19:30", booked=8)]  # fmt: skip
    reply = demo.answer(loop_body([user(CANCEL), *answered(class_reads(sessions))]))
    assert tool_uses(reply) == []
    assert (
        said(reply)
        == "CrossFit at 18:00 on Wed 2 Dec is already cancelled, so nothing was changed."
    )


def test_a_class_that_does_not_exist_is_said_not_to_exist() -> None:
    sessions = [session("s3", "Barbell Club", "19:30", booked=8)]
    reply = demo.answer(loop_body([user(CANCEL), *answered(class_reads(sessions))]))
    assert tool_uses(reply) == []
    assert said(reply) == "There is no CrossFit at 18:00 on Wed 2 Dec, so nothing was changed."


def test_words_that_name_no_class_type_get_a_question_not_a_guess() -> None:
    sessions = [session("s2", "CrossFit", "18:00")]
    text = "Cancel tomorrow's 18:00 yoga"
    reply = demo.answer(loop_body([user(text), *answered(class_reads(sessions))]))
    assert tool_uses(reply) == [] and said(reply).startswith("Which class do you mean?")


def open_gym(start: str) -> dict[str, Any]:
    return session(f"og-{start}", "Open Gym", start, classTypeId="t1", status="draft")


def create_of(reply: demo.Reply) -> dict[str, Any]:
    (create,) = tool_uses(reply)
    assert create.name == "class_sessions" and create.input["action"] == "create"
    args: dict[str, Any] = create.input["args"]
    return args


def test_an_open_gym_goes_at_the_hours_the_words_name() -> None:
    text = "Schedule open gym tomorrow 13:00-14:30"
    reply = demo.answer(loop_body([user(text), *answered(class_reads([open_gym("14:00")]))]))
    assert create_of(reply) == {
        "classTypeId": "t1",
        "slot": {"day": TOMORROW, "start": "13:00", "minutes": 90},
    }


def test_an_hour_that_holds_an_open_gym_already_is_said_and_not_moved() -> None:
    text = "Schedule open gym tomorrow 13:00-14:00"
    reply = demo.answer(loop_body([user(text), *answered(class_reads([open_gym("13:00")]))]))
    assert tool_uses(reply) == []
    assert said(reply) == (
        "There is already an Open Gym at 13:00 on Wed 2 Dec, so nothing was changed."
    )


def test_an_open_gym_asked_for_today_is_read_and_made_today() -> None:
    text = "Schedule open gym today 16:00"
    first = demo.answer(loop_body([user(text)]))
    assert [u.input["args"] for u in tool_uses(first)][1] == {"days": {"first": "2026-12-01"}}
    reads = class_reads([])
    reads[1] = ("read", {"action": "schedule", "args": {"days": {"first": "2026-12-01"}}},
                {"sessions": []})  # fmt: skip
    reply = demo.answer(loop_body([user(text), *answered(reads)]))
    assert create_of(reply)["slot"] == {"day": "2026-12-01", "start": "16:00", "minutes": 60}


def test_an_afternoon_with_no_hour_named_takes_the_first_free_hour_and_says_it() -> None:
    text = catalog("en")["prompt.schedule"]
    taken = [open_gym("14:00"), open_gym("15:00")]
    messages = [user(text), *answered(class_reads(taken))]
    create = create_of(demo.answer(loop_body(messages)))
    assert create["slot"]["start"] == "16:00"
    made = [("class_sessions", {"action": "create", "args": create}, {"id": "new"})]
    done = demo.answer(loop_body([*messages, *answered(made)]))
    assert said(done) == (
        "Done: a draft Open Gym session on Wed 2 Dec at 16:00. Undo is on the card."
    )


def test_a_coach_asking_to_cancel_is_told_who_can_and_nothing_is_tried() -> None:
    reply = demo.answer(loop_body([user(CANCEL)], role="coach"))
    assert tool_uses(reply) == []
    assert said(reply) == (
        "As a coach you can't cancel classes: an owner or an admin can. Nothing was changed."
    )


def test_booking_someone_already_in_the_class_says_so_and_books_nobody() -> None:
    saar = {"membershipId": "m1", "name": "Saar Cohen", "role": "member"}
    reads = [("read", {"action": "find_members", "args": {"query": "Saar"}}, {"people": [saar]}),
             *class_reads([session("s1", "CrossFit", "07:00")])]  # fmt: skip
    roster = [("read", {"action": "session", "args": {"sessionId": "s1"}},
               {"roster": [{"memberId": "m1"}]})]  # fmt: skip
    text = "Book Saar into tomorrow's 07:00 CrossFit"
    reply = demo.answer(loop_body([user(text), *answered(reads), *answered(roster)]))
    assert tool_uses(reply) == []
    assert said(reply) == (
        "Already booked into CrossFit at 07:00 on Wed 2 Dec: Saar Cohen. Nothing was changed."
    )


def test_a_batch_books_only_who_is_not_in_the_class_yet_and_says_who_was() -> None:
    maya = {"membershipId": "m1", "name": "Maya Rosen", "role": "member"}
    noa = {"membershipId": "m2", "name": "Noa Friedman", "role": "member"}
    reads = [("read", {"action": "find_members", "args": {"query": "Maya Rosen"}}, {"people": [maya]}),
             ("read", {"action": "find_members", "args": {"query": "Noa Friedman"}}, {"people": [noa]}),
             *class_reads([session("s1", "CrossFit", "07:00")])]  # fmt: skip
    roster = [("read", {"action": "session", "args": {"sessionId": "s1"}},
               {"roster": [{"memberId": "m1"}]})]  # fmt: skip
    text = "Book Maya Rosen and Noa Friedman into tomorrow's 07:00 CrossFit"
    reply = demo.answer(loop_body([user(text), *answered(reads), *answered(roster)]))
    assert [u.input["args"] for u in tool_uses(reply)] == [{"sessionId": "s1", "memberId": "m2"}]
    assert "Maya Rosen" in said(reply) and "only the others" in said(reply)


def test_a_full_class_is_said_to_be_full() -> None:
    noa = {"membershipId": "m2", "name": "Noa Friedman", "role": "member"}
    reads = [("read", {"action": "find_members", "args": {"query": "Saar"}}, {"people": [noa]}),
             *class_reads([session("s1", "CrossFit", "07:00", booked=12)])]  # fmt: skip
    roster = [("read", {"action": "session", "args": {"sessionId": "s1"}}, {"roster": []})]
    text = "Book Saar into tomorrow's 07:00 CrossFit"
    reply = demo.answer(loop_body([user(text), *answered(reads), *answered(roster)]))
    assert tool_uses(reply) == [] and said(reply).endswith("is full, so nobody was booked.")


def test_a_rejected_cancel_is_answered_in_the_callers_locale() -> None:
    messages = [
        user("בטל את שיעור ה-CrossFit של מחר ב-18:00", locale="he"),
        *answered(
            [
                (
                    "class_sessions",
                    {"action": "cancel", "args": {"sessionIds": ["s2"]}},
                    {"code": "rejected_by_user"},
                )
            ],
            ok=False,
        ),
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


def _without_the_demo_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    """SPOTTER_FAKE_MODEL absent, and absent again after the test: `spotter dev` sets it in the
    process's environment, and `delenv` of an absent variable records nothing to undo, so the
    demo model would answer every later test of this worker."""
    monkeypatch.setenv("SPOTTER_FAKE_MODEL", "")
    monkeypatch.delenv("SPOTTER_FAKE_MODEL")


def test_spotter_dev_turns_the_demo_model_on_without_a_provider(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _without_the_demo_setting(monkeypatch)
    said = cli._model_announcement(Settings(anthropic_api_key=None, model_provider="anthropic"))
    assert "OFFLINE DEMO MODEL" in said
    assert Settings().spotter_fake_model is True  # set for the server it starts


def test_spotter_dev_announces_a_real_key(monkeypatch: pytest.MonkeyPatch) -> None:
    _without_the_demo_setting(monkeypatch)
    said = cli._model_announcement(Settings(anthropic_api_key="k", model_provider="anthropic"))
    assert said == "Model: the Anthropic API."
    assert "SPOTTER_FAKE_MODEL" not in __import__("os").environ


def test_spotter_dev_leaves_the_demo_model_off_when_told(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPOTTER_FAKE_MODEL", "0")
    said = cli._model_announcement(Settings(anthropic_api_key=None, model_provider="anthropic"))
    assert "provider_not_configured" in said
