"""Reciprocal-rank fusion: agreement between lists wins, ≤ 3 per scope, ≤ 5 overall."""

from __future__ import annotations

import uuid

from spotter.agent.rag.search import Hit, fuse


def hit(entity: str, label: str) -> Hit:
    return Hit(entity, uuid.uuid5(uuid.NAMESPACE_DNS, label), label, None, 1.0)


def test_an_entity_found_by_both_lists_outranks_one_found_by_either() -> None:
    lexical = [hit("member", "Saar Levi"), hit("member", "Saar Cohen")]
    semantic = [hit("member", "Saar Cohen"), hit("member", "Dana Levi")]
    assert [h.label for h in fuse(lexical, semantic)] == ["Saar Cohen", "Saar Levi", "Dana Levi"]


def test_at_most_three_hits_per_scope() -> None:
    many = [hit("exercise", f"Move {i}") for i in range(6)]
    assert len(fuse(many)) == 3


def test_at_most_five_hits_in_all() -> None:
    lists = [
        hit(scope, f"{scope} {i}")
        for scope in ("program", "workout", "exercise", "member")
        for i in range(3)
    ]
    fused = fuse(lists)
    assert len(fused) == 5


def test_empty_lists_fuse_to_nothing() -> None:
    assert fuse([], []) == []
