"""The UI message stream translator (`http.ui_stream`): Spotter's events as the chunks `useChat`
reads — steps per model reply, a continuation inside the message's last step, approvals answered
before their outcome, errors with their code, and a resume that skips what the client has."""

from __future__ import annotations

import json
from typing import Any

from spotter.agent.stream import Recorded
from spotter.http.ui_stream import KnownCall, UiMessageStream


def run(
    stream: UiMessageStream, *events: dict[str, Any], first_id: int = 1
) -> list[dict[str, Any]]:
    frames = b""
    for offset, event in enumerate(events):
        frames += b"".join(stream.frames(Recorded(first_id + offset, event)))
    frames += b"".join(stream.end())
    body = frames.decode()
    assert body.endswith("data: [DONE]\n\n")
    return [
        json.loads(line.removeprefix("data: "))
        for line in body.split("\n")
        if line.startswith("data: {")
    ]


def kinds(chunks: list[dict[str, Any]]) -> list[str]:
    return [c["type"] for c in chunks]


def text(delta: str) -> dict[str, Any]:
    return {"type": "text_delta", "delta": delta}


def done_reply() -> dict[str, Any]:
    return {"type": "message_done", "messageId": "m", "stopReason": "tool_use"}


def started(call_id: str, router: str = "programs", action: str = "list") -> dict[str, Any]:
    return {
        "type": "tool_started",
        "toolUseId": call_id,
        "router": router,
        "action": action,
        "input": {"action": action, "args": {"q": 1}},
    }


def completed(
    call_id: str, ok: bool = True, code: str | None = None, **more: Any
) -> dict[str, Any]:
    event = {"type": "tool_completed", "toolUseId": call_id, "router": "programs"}
    event |= {"action": "archive", "ok": ok, "inverseAvailable": False, **more}
    if not ok:
        event["error"] = {"code": code, "message": f"{code} happened", "reason": "why not"}
    else:
        event["output"] = {"done": True}
    return event


def confirmation(call_id: str) -> dict[str, Any]:
    return {
        "type": "confirmation_pending",
        "toolUseId": call_id,
        "router": "programs",
        "action": "archive",
        "input": {"action": "archive", "args": {"programId": "p1"}},
        "confirm": "destructive",
        "confirmation": {"target": "Old"},
        "fingerprint": f"fp-{call_id}",
    }


def test_a_reply_and_its_calls_are_one_step_and_the_next_reply_another() -> None:
    chunks = run(
        UiMessageStream(message_id="turn-1"),
        text("Checking."),
        done_reply(),
        started("t1"),
        completed("t1"),
        text("Done."),
        {"type": "done", "conversationId": "c1", "usage": {"outputTokens": 5}},
    )
    assert kinds(chunks) == [
        "start",
        "start-step",
        "text-start",
        "text-delta",
        "text-end",
        "tool-input-available",
        "tool-output-available",
        "finish-step",
        "start-step",
        "text-start",
        "text-delta",
        "text-end",
        "finish-step",
        "finish",
    ]
    assert chunks[0] == {"type": "start", "messageId": "turn-1"}
    assert chunks[5]["toolName"] == "programs_list" and chunks[5]["input"] == {"q": 1}
    assert chunks[5]["providerExecuted"] is True
    assert chunks[-1] == {
        "type": "finish",
        "finishReason": "stop",
        "messageMetadata": {"conversationId": "c1", "usage": {"outputTokens": 5}},
    }


def test_a_reply_that_only_calls_tools_is_a_step_of_its_own() -> None:
    chunks = run(
        UiMessageStream(),
        text("Looking."),
        done_reply(),
        started("t1"),
        completed("t1"),
        done_reply(),  # the next reply said nothing, only called
        started("t2"),
        completed("t2"),
    )
    steps = [i for i, c in enumerate(chunks) if c["type"] == "start-step"]
    assert len(steps) == 2
    second = [c.get("toolCallId") for c in chunks[steps[1] :] if "toolCallId" in c]
    assert set(second) == {"t2"}


def test_page_seeds_are_a_step_before_the_first_reply() -> None:
    chunks = run(UiMessageStream(), started("seed"), completed("seed"), text("Hi."))
    assert kinds(chunks)[:5] == [
        "start",
        "start-step",
        "tool-input-available",
        "tool-output-available",
        "finish-step",
    ]
    assert kinds(chunks)[5:7] == ["start-step", "text-start"]


def test_a_continuation_answers_in_the_last_step_then_the_model_replies_in_a_new_one() -> None:
    shown = {"t1": KnownCall("programs_archive", approval_id="fp-t1", awaiting=True)}
    chunks = run(
        UiMessageStream(message_id="turn-1", continues=shown),
        started("t1", action="archive"),
        completed("t1"),
        started("held", action="create"),  # a held sibling the message never showed
        completed("held"),
        text("Archived."),
    )
    before_reply = kinds(chunks)[: kinds(chunks).index("text-start")]
    assert before_reply == [
        "start",
        "tool-approval-response",
        "tool-output-available",
        "tool-input-available",
        "tool-output-available",
        "finish-step",
        "start-step",
    ]
    assert chunks[1] == {
        "type": "tool-approval-response",
        "approvalId": "fp-t1",
        "approved": True,
        "providerExecuted": True,
    }
    assert chunks[3]["toolCallId"] == "held"
    assert chunks[-1]["finishReason"] == "stop"


def test_a_replay_answers_the_approval_before_its_outcome() -> None:
    chunks = run(
        UiMessageStream(),
        done_reply(),
        confirmation("t1"),
        confirmation("t2"),
        {"type": "done", "conversationId": "c1"},
        completed("t1", ok=False, code="rejected_by_user"),
        started("t2", action="archive"),
        completed("t2"),
        completed("t3", ok=False, code="superseded"),
    )
    request = next(c for c in chunks if c["type"] == "tool-approval-request")
    assert request["approvalId"] == "fp-t1"
    assert request["approvalDescriptor"] == {
        "confirm": "destructive",
        "confirmation": {"target": "Old"},
    }
    answered = [c for c in chunks if c["type"] == "tool-approval-response"]
    assert [(c["approvalId"], c["approved"], c.get("reason")) for c in answered] == [
        ("fp-t1", False, "why not"),
        ("fp-t2", True, None),
    ]
    denied = kinds(chunks).index("tool-output-denied")
    assert kinds(chunks)[denied - 1] == "tool-approval-response"
    # a call nobody decided is an error with its code, no approval answered for it
    error = next(c for c in chunks if c["type"] == "tool-output-error")
    assert error["toolCallId"] == "t3" and error["toolMetadata"]["errorCode"] == "superseded"


def test_a_call_still_waiting_finishes_the_message_with_tool_calls() -> None:
    chunks = run(UiMessageStream(), done_reply(), confirmation("t1"))
    assert chunks[-1]["finishReason"] == "tool-calls"
    picker = run(
        UiMessageStream(),
        done_reply(),
        {
            "type": "disambiguation_pending",
            "toolUseId": "p1",
            "kind": "member",
            "prompt": "Which?",
            "candidates": [{"id": "a", "label": "A"}],
            "router": "read",
            "action": "ask_user_to_pick",
        },
    )
    [asked] = [c for c in picker if c["type"] == "tool-input-available"]
    assert asked["toolName"] == "read_ask_user_to_pick" and "providerExecuted" not in asked
    assert asked["input"] == {
        "kind": "member",
        "prompt": "Which?",
        "candidates": [{"id": "a", "label": "A"}],
    }
    assert picker[-1]["finishReason"] == "tool-calls"


def test_an_error_says_its_code_before_the_sdk_stops_reading() -> None:
    chunks = run(
        UiMessageStream(),
        text("Hel"),
        {"type": "error", "code": "run_stopped", "message": "Stopped.", "traceId": "tr-1"},
        {"type": "done", "conversationId": "c1"},
    )
    assert kinds(chunks)[4:7] == ["text-end", "message-metadata", "error"]
    assert chunks[5]["messageMetadata"] == {"error": {"code": "run_stopped", "traceId": "tr-1"}}
    assert chunks[6] == {"type": "error", "errorText": "Stopped."}
    assert chunks[-1]["finishReason"] == "error"


def test_a_resume_after_an_id_reads_everything_but_sends_only_what_came_after() -> None:
    stream = UiMessageStream(message_id="turn-1", after=3)
    chunks = run(stream, text("a"), text("b"), text("c"), text("d"))
    assert kinds(chunks) == ["start", "text-delta", "text-end", "finish-step", "finish"]
    assert chunks[1] == {"type": "text-delta", "id": "text-1", "delta": "d"}


def test_the_message_id_is_asked_for_when_the_first_frame_leaves() -> None:
    run_id: list[str] = []
    stream = UiMessageStream(message_id=lambda: run_id[0] if run_id else None)
    run_id.append("run-7")
    assert run(stream, text("x"))[0] == {"type": "start", "messageId": "run-7"}


def test_each_frame_carries_its_events_id() -> None:
    stream = UiMessageStream()
    frames = b"".join(stream.frames(Recorded(41, text("x")))).decode()
    assert all(block.startswith("id: 41\n") for block in frames.strip().split("\n\n"))
