"""What a model call costs, in integer micro-dollars, at the rates of the model it was sent to.

Rates are per 1M tokens, keyed by base model id: a dated snapshot (`claude-haiku-4-5-20251001`)
is priced as its model, and an id with no row at the dearest row's rates, so an unknown model is
never under-counted against a budget. Source: Anthropic's pricing page (claude-sonnet-5-5 with
the 2026-10-07 cache-read cut). 5m cache writes are 1.25x input, 1h writes 2x.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Rates:
    """USD per 1M tokens, held as micro-dollars per 1M tokens (so $2.50 is 2_500_000)."""

    input: int
    output: int
    cache_read: int
    cache_write_5m: int
    cache_write_1h: int


def _usd(value: float) -> int:
    return round(value * 1_000_000)


def _rates(inp: float, out: float, read: float) -> Rates:
    return Rates(_usd(inp), _usd(out), _usd(read), _usd(inp * 1.25), _usd(inp * 2))


# The id every call names when `spotter dev` answers with the offline demo model
# (`providers.demo`): nothing is billed, so the demo records its tokens and no cost.
OFFLINE_DEMO_MODEL = "spotter-offline-demo"
FREE = Rates(0, 0, 0, 0, 0)

MODEL_RATES: dict[str, Rates] = {
    "claude-haiku-4-5": _rates(1.00, 5.00, 0.10),
    "claude-sonnet-5-5": _rates(2.00, 10.00, 0.10),
    "claude-opus-5": _rates(5.00, 25.00, 0.50),
    OFFLINE_DEMO_MODEL: FREE,
}
DEAREST: Rates = max(MODEL_RATES.values(), key=lambda r: (r.output, r.input))

_SNAPSHOT = re.compile(r"-\d{8}$")


def base_model_id(model: str) -> str:
    """`claude-haiku-4-5-20251001` → `claude-haiku-4-5`; Bedrock ids lose their prefix/suffix."""
    model = model.removeprefix("anthropic.").split(":", 1)[0]
    model = re.sub(r"-v\d+$", "", model)
    return _SNAPSHOT.sub("", model)


def rates_for(model: str) -> Rates:
    return MODEL_RATES.get(base_model_id(model), DEAREST)


@dataclass(frozen=True)
class CallTokens:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_5m_tokens: int = 0
    cache_write_1h_tokens: int = 0


def cost_usd_micros(model: str, tokens: CallTokens) -> int:
    """One call's cost, rounded once at the end (so many small calls do not drift)."""
    r = rates_for(model)
    total = (
        tokens.input_tokens * r.input
        + tokens.output_tokens * r.output
        + tokens.cache_read_tokens * r.cache_read
        + tokens.cache_write_5m_tokens * r.cache_write_5m
        + tokens.cache_write_1h_tokens * r.cache_write_1h
    )
    return -(-total // 1_000_000)  # ceiling: a budget is never under-counted
