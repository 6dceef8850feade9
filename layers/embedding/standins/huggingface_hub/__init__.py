"""Stand-in for huggingface-hub: voyageai downloads a local tokenizer's config with it
(`count_tokens`, `tokenize`), which Spotter never calls."""

from _embedding_standin import StandInError


def hf_hub_download(*args: object, **kwargs: object) -> str:
    raise StandInError("huggingface-hub (hf_hub_download)")
