"""A request's output cap lowered after it was built (the budget's clamp): same bytes otherwise."""

from __future__ import annotations

import json

from spotter.providers.wire_request import MIN_THINKING_BUDGET, WireRequest, to_json

TOOLS = '[{"name":"t","input_schema":{"type":"object"}}]'


def test_a_capped_request_changes_max_tokens_and_reuses_every_other_field_verbatim() -> None:
    fields = {"thinking": '{"type":"adaptive"}', "tools": TOOLS, "messages": "[]"}
    full = WireRequest.of("claude-sonnet-5-5", 16_384, fields)
    capped = full.capped(3_000)
    assert capped.max_tokens == 3_000
    assert json.loads(capped.body) == {**json.loads(full.body), "max_tokens": 3_000}
    assert TOOLS in capped.body and len(capped.body) < len(full.body)


def test_a_cap_at_or_above_the_request_s_own_changes_nothing() -> None:
    full = WireRequest.of("m", 1_024, {"messages": "[]"})
    assert full.capped(1_024) is full and full.capped(9_999) is full


def test_a_fixed_thinking_budget_shrinks_below_the_new_cap() -> None:
    thinking = to_json({"type": "enabled", "budget_tokens": 4_096})
    full = WireRequest.of("claude-sonnet-4-5", 8_192, {"thinking": thinking, "messages": "[]"})
    sent = json.loads(full.capped(5_000).body)
    assert sent["thinking"] == {"type": "enabled", "budget_tokens": 2_500}
    assert sent["max_tokens"] == 5_000
    floor = json.loads(full.capped(2_048).body)["thinking"]["budget_tokens"]
    assert floor == MIN_THINKING_BUDGET < 2_048
    # a budget already under half the new cap stays as it was
    small = to_json({"type": "enabled", "budget_tokens": 2_000})
    modest = WireRequest.of("claude-sonnet-4-5", 8_192, {"thinking": small, "messages": "[]"})
    assert json.loads(modest.capped(5_000).body)["thinking"]["budget_tokens"] == 2_000
