"""Reciprocal-rank fusion: blend ranked lists without comparing their scores."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

RRF_K = 60


def reciprocal_rank_fusion(*rankings: Sequence[K], k: int = RRF_K) -> list[tuple[K, float]]:
    """Every key with its fused score (sum of 1 / (k + rank)), best first; ties keep the order
    in which keys were first seen."""
    fused: dict[K, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            fused[key] = fused.get(key, 0.0) + 1.0 / (k + rank)
    order = {key: i for i, key in enumerate(fused)}
    return sorted(fused.items(), key=lambda item: (-item[1], order[item[0]]))
