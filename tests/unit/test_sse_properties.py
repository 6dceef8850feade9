"""Property tests for the SSE encoder: whatever text or tool output a run carries, each event is
exactly one frame that a spec-conforming EventSource parser reads back unchanged — but for what
no UTF-8 stream or jsonb can carry (a NUL, a lone surrogate), which reads back repaired
(`db.text`), as it is persisted."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from spotter.agent import events as ev
from spotter.db.text import repaired
from spotter.http.sse import encode

# WHATWG "event stream interpretation": lines end at CRLF, LF or CR; a blank line ends a frame.
_LINE_END = re.compile(r"\r\n|\r|\n")


def parse_frames(stream: str) -> list[tuple[str, str]]:
    frames: list[tuple[str, str]] = []
    event, data = "message", []
    for line in _LINE_END.split(stream):
        if line == "":
            if data:
                frames.append((event, "\n".join(data)))
            event, data = "message", []
        elif line.startswith("event:"):
            event = line[6:].removeprefix(" ")
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    return frames


json_values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300)
@given(st.text())
def test_any_text_delta_is_one_frame_that_decodes_to_itself(text: str) -> None:
    wire = encode(ev.TextDelta(delta=text)).decode()
    [(event, data)] = parse_frames(wire)
    assert event == "text_delta"
    assert json.loads(data)["delta"] == repaired(text)


@settings(max_examples=200)
@given(st.lists(st.text(), min_size=1, max_size=8))
def test_consecutive_events_never_bleed_into_each_other(texts: list[str]) -> None:
    wire = b"".join(encode(ev.TextDelta(delta=t)) for t in texts).decode()
    assert [json.loads(data)["delta"] for _, data in parse_frames(wire)] == repaired(texts)


@settings(max_examples=200)
@given(json_values)
def test_any_tool_output_round_trips(output: Any) -> None:
    event = ev.ToolCompleted(
        tool_use_id="toolu_1", router="workouts", action="create", ok=True, output=output
    )
    [(name, data)] = parse_frames(encode(event).decode())
    assert name == "tool_completed"
    assert json.loads(data).get("output") == repaired(output)
