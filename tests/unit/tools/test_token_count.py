"""Token counts come from ctok with the tokenizer of the model that reads them."""

from __future__ import annotations

import json

from spotter.agent.cost.model_policy import FAST_MODEL, LOOP_MODEL
from spotter.tools.token_count import HAIKU_FAMILY, LOOP_FAMILY, claude_tokens, tokenizer_family


def test_the_families_are_those_of_the_policy_models() -> None:
    assert tokenizer_family(LOOP_MODEL) == LOOP_FAMILY
    assert tokenizer_family(FAST_MODEL) == HAIKU_FAMILY


def test_opus_4_7_has_its_own_tokenizer_and_bedrock_prefixes_are_ignored() -> None:
    assert tokenizer_family("claude-opus-4-7") == "4.7"
    assert tokenizer_family("us.anthropic.claude-haiku-4-5-20251001-v1:0") == "3.0"


def test_json_schemas_cost_more_than_chars_over_four() -> None:
    # why chars / 4 was dropped for definition sizes: uuids, braces and quotes tokenize densely
    schema = json.dumps(
        {"type": "object", "properties": {"leadId": {"type": "string", "format": "uuid"}}}
    )
    assert claude_tokens(schema) > len(schema) / 4


def test_the_two_tokenizers_count_the_same_text_differently() -> None:
    text = "Move the lead to Trial booked and email them the schedule."
    assert claude_tokens(text, LOOP_FAMILY) != claude_tokens(text, HAIKU_FAMILY)
