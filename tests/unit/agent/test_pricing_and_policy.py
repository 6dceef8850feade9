"""Model policy and pricing: every policy model priced, snapshots, unknown ids, integer math."""

from __future__ import annotations

import pytest

from spotter.agent.cost.model_policy import LOOP_MAX_TOKENS, ROLES, model_policy
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


def test_the_offline_demo_model_answers_every_role_and_costs_nothing() -> None:
    policy = model_policy(Settings(environment="dev", spotter_fake_model=True))
    assert {call.model for call in policy.values()} == {OFFLINE_DEMO_MODEL}
    tokens = CallTokens(input_tokens=1_800, output_tokens=90, cache_read_tokens=6_000)
    assert cost_usd_micros(OFFLINE_DEMO_MODEL, tokens) == 0


def test_a_real_provider_is_priced_at_its_rates_even_with_the_demo_asked_for() -> None:
    policy = model_policy(
        Settings(environment="dev", spotter_fake_model=True, anthropic_api_key="k")
    )
    assert OFFLINE_DEMO_MODEL not in {call.model for call in policy.values()}
    assert cost_usd_micros(policy["spotterLoop"].model, CallTokens(output_tokens=1_000)) > 0
