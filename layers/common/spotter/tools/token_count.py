"""Claude token counts of text we build (tool definitions, prompts), offline, through `ctok`.

`ctok` reconstructs Claude's tokenizer counts (exact on its published corpora); chars / 4
under-counted our JSON definitions by ~40%. It is a dev dependency: the docs generator and the
size tests count, the running service never does (its estimator stays chars / 4, spec 002).
Tokenizer generations differ, so a count names the model it is for.
"""

from __future__ import annotations

# The loop model (agent.cost.model_policy.LOOP_MODEL, Sonnet 5.x) and the quick route's Haiku 4.5;
# a test keeps these in step with the model policy.
LOOP_FAMILY = "4.8"
HAIKU_FAMILY = "3.0"
# Haiku 4.5 caches a prefix only from this many tokens (Anthropic's prompt-caching minimum).
HAIKU_CACHE_MINIMUM = 4096


def tokenizer_family(model: str) -> str:
    """ctok's family for a model id: v3 up to Opus 4.6 (Haiku 4.5 included), then 4.7, 4.8+."""
    name = model.removeprefix("us.").removeprefix("anthropic.")
    if name.startswith("claude-opus-4-7"):
        return "4.7"
    if name.startswith(("claude-3", "claude-haiku-4", "claude-sonnet-4", "claude-opus-4")):
        return "3.0"
    return "4.8"


def claude_tokens(text: str, family: str = LOOP_FAMILY) -> int:
    """Tokens of `text` as one message, for a tokenizer family (the loop model's unless said)."""
    try:
        from ctok import token_count
    except ImportError as exc:  # pragma: no cover - the dev extra installs it
        raise RuntimeError("counting tokens needs ctok: pip install -e '.[dev]'") from exc
    return int(token_count(text, family))
