"""Model policy and pricing: every policy model priced, snapshots, unknown ids, integer math."""

from __future__ import annotations

import pytest

from spotter.agent.cost.model_policy import (
    LOOP_MAX_TOKENS,
    LOOP_MODEL,
    ROLES,
    loop_call,
    model_policy,
)
from spotter.agent.cost.pricing import (
    DEAREST,
    MODEL_RATES,
    OFFLINE_DEMO_MODEL,
    CallTokens,
    base_model_id,
    cost_usd_micros,
    rates_for,
)
from spotter.config import Settings
from spotter.tiers import PLATFORM_TIERS, Tier


def test_every_role_has_a_call_and_every_policy_model_has_rates() -> None:
    policy = model_policy(Settings(environment="test"))
    assert set(policy) == set(ROLES)
    for call in policy.values():
        assert base_model_id(call.model) in MODEL_RATES, call


def test_the_loop_thinks_within_the_shared_output_cap() -> None:
    loop = model_policy(Settings(environment="test"))["spotterLoop"]
    assert loop.max_tokens == LOOP_MAX_TOKENS == 16_384 and loop.thinks
    assert not model_policy(Settings(environment="test"))["spotterTitle"].thinks


def test_settings_override_the_models() -> None:
    policy = model_policy(
        Settings(environment="test", spotter_loop_model="claude-opus-5", spotter_fast_model="x")
    )
    assert policy["spotterLoop"].model == "claude-opus-5"
    assert policy["spotterCompaction"].model == "x"


@pytest.mark.parametrize(
    ("model", "base"),
    [
        ("claude-haiku-4-5-20251001", "claude-haiku-4-5"),
        ("claude-sonnet-5-5", "claude-sonnet-5-5"),
        ("anthropic.claude-sonnet-5-5-20260801-v1:0", "claude-sonnet-5-5"),
    ],
)
def test_snapshot_and_bedrock_ids_price_as_their_model(model: str, base: str) -> None:
    assert base_model_id(model) == base
    assert rates_for(model) == MODEL_RATES[base]


def test_unknown_models_price_at_the_dearest_row() -> None:
    assert rates_for("claude-sonnet-4-5") == DEAREST
    assert all(DEAREST.output >= r.output for r in MODEL_RATES.values())


def test_cost_is_integer_micro_dollars_with_cache_ttls_apart() -> None:
    tokens = CallTokens(
        input_tokens=1_000_000, output_tokens=1_000_000, cache_read_tokens=1_000_000,
        cache_write_5m_tokens=1_000_000, cache_write_1h_tokens=1_000_000,
    )  # fmt: skip
    # sonnet 5.5: $2 in, $10 out, $0.10 read, $2.50 5m write, $4 1h write
    assert cost_usd_micros("claude-sonnet-5-5", tokens) == 18_600_000
    assert cost_usd_micros("claude-sonnet-5-5", CallTokens(input_tokens=1)) == 2
    assert cost_usd_micros("claude-haiku-4-5", CallTokens(output_tokens=3)) == 15
    assert cost_usd_micros("claude-haiku-4-5", CallTokens(cache_read_tokens=1)) == 1, "rounded up"


def test_the_loop_model_is_the_org_s_then_the_setting_then_the_tier_then_ours(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(PLATFORM_TIERS, "pinned", Tier(1_000_000, frozenset(), "claude-opus-5"))
    plain, configured = (
        Settings(environment="test"),
        Settings(environment="test", spotter_loop_model="claude-sonnet-5-5-20260801"),
    )
    assert loop_call(plain, "growth").model == LOOP_MODEL
    assert loop_call(plain, "pinned").model == "claude-opus-5"
    assert loop_call(configured, "pinned").model == "claude-sonnet-5-5-20260801"
    assert loop_call(configured, "pinned", "claude-sonnet-4-5").model == "claude-sonnet-4-5"
    # each model is called its own way: Sonnet 4.5 has the smaller cap and a fixed budget
    assert loop_call(plain, "growth", "claude-sonnet-4-5").max_tokens == 8_192


def test_a_resumed_run_continues_on_the_model_that_wrote_its_turn() -> None:
    settings = Settings(environment="test")
    resumed = loop_call(settings, "growth", resumed_on="claude-sonnet-4-5-20250929")
    assert (resumed.model, resumed.max_tokens) == ("claude-sonnet-4-5-20250929", 8_192)
    assert resumed.thinking == {"type": "enabled", "budget_tokens": 4_096}
    # the same model under another snapshot id is the configured call itself
    assert loop_call(settings, "growth", resumed_on=f"{LOOP_MODEL}-20260801").model == LOOP_MODEL


def test_a_turn_of_a_model_we_cannot_call_resumes_on_ours_with_thinking_off() -> None:
    resumed = loop_call(Settings(environment="test"), "growth", resumed_on="claude-3-opus")
    assert (resumed.model, resumed.max_tokens) == (LOOP_MODEL, LOOP_MAX_TOKENS)
    assert not resumed.thinks, "its signed thinking cannot go back to another model"


def test_the_offline_demo_model_answers_every_role_and_costs_nothing() -> None:
    policy = model_policy(Settings(environment="dev", spotter_fake_model=True))
    assert {call.model for call in policy.values()} == {OFFLINE_DEMO_MODEL}
    tokens = CallTokens(input_tokens=1_800, output_tokens=90, cache_read_tokens=6_000)
    assert cost_usd_micros(OFFLINE_DEMO_MODEL, tokens) == 0


def test_the_demo_model_is_the_loop_call_over_an_org_override_and_a_resumed_turn() -> None:
    """The run's loop call (issue 26 item 10) is chosen per run: in the demo it is still the
    demo, whatever the org pins or the suspended turn was written by, so the demo bills nothing."""
    demo = Settings(environment="dev", spotter_fake_model=True)
    assert loop_call(demo, "growth", "claude-opus-5").model == OFFLINE_DEMO_MODEL
    resumed = loop_call(demo, "growth", resumed_on="claude-sonnet-4-5")
    assert resumed.model == OFFLINE_DEMO_MODEL


def test_a_real_provider_is_priced_at_its_rates_even_with_the_demo_asked_for() -> None:
    policy = model_policy(
        Settings(environment="dev", spotter_fake_model=True, anthropic_api_key="k")
    )
    assert OFFLINE_DEMO_MODEL not in {call.model for call in policy.values()}
    assert cost_usd_micros(policy["spotterLoop"].model, CallTokens(output_tokens=1_000)) > 0
