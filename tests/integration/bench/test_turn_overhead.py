"""bench/turn_overhead.py never rots: its measuring function runs two turns of each kind against
the test database and reports every figure; its round-trip counter counts what it claims."""

from __future__ import annotations

import uuid

import psycopg

from tests.support.bench import bench_module

turn_overhead = bench_module("turn_overhead")
wire_counter = bench_module("wire_counter")


async def test_a_two_turn_run_reports_every_figure_of_both_kinds(clean_db: str) -> None:
    report = await turn_overhead.measure(clean_db, turns=2, runs=1)
    assert set(report.kinds) == {"plain", "three_reads"}
    for kind in report.kinds.values():
        for window in (kind.early, kind.late):
            assert set(window) == set(turn_overhead.FIGURES)
            assert window["e2e_ms"] > 0
            assert window["model_ms"] > 0
            assert window["db_ms"] > 0
            assert window["round_trips"] > 0
            assert window["commits"] > 0
            assert window["wal_bytes"] > 0
            assert window["row_bytes"] > 0
            assert window["rewrites"] == 0
    assert (
        report.kinds["three_reads"].early["round_trips"]
        > report.kinds["plain"].early["round_trips"]
    )
    assert "end to end" in turn_overhead.render(report)


def test_the_counter_counts_one_round_trip_per_plain_statement(pg_server_url: str) -> None:
    assert wire_counter.self_check(pg_server_url, statements=4)["plain"] == 4


def test_the_counter_counts_a_pipeline_with_one_sync_as_one_round_trip(pg_server_url: str) -> None:
    assert wire_counter.self_check(pg_server_url, statements=4)["pipeline"] == 1


def test_the_commit_counter_counts_the_transactions_that_wrote(clean_db: str) -> None:
    turn_overhead.install_rewrite_trigger(clean_db)
    try:
        with (
            psycopg.connect(clean_db, autocommit=True) as probe_conn,
            psycopg.connect(clean_db, autocommit=True) as work,
        ):
            probe = turn_overhead.Probe(probe_conn, uuid.uuid4())
            probe.before_turn()
            for _ in range(3):  # read-only: no transaction id, no commit record
                work.execute("SELECT count(*) FROM organizations").fetchone()
            for n in range(2):
                work.execute(
                    "INSERT INTO organizations (clerk_org_id, name) VALUES (%s, 'Commit Box')",
                    (f"org_commit_{uuid.uuid4().hex[:8]}_{n}",),
                )
            assert probe.after_turn()["commits"] == 2
    finally:
        turn_overhead.drop_rewrite_trigger(clean_db)


def test_the_history_check_counts_a_statement_that_updates_ai_messages(clean_db: str) -> None:
    turn_overhead.install_rewrite_trigger(clean_db)
    try:
        with psycopg.connect(clean_db, autocommit=True) as conn:
            before = turn_overhead.history_rewrites(conn)
            conn.execute("UPDATE ai_messages SET model = model WHERE false")
            assert turn_overhead.history_rewrites(conn) == before + 1
    finally:
        turn_overhead.drop_rewrite_trigger(clean_db)


async def test_turns_stay_within_issue_15s_round_trip_budget(clean_db: str) -> None:
    """Round trips are counted on the wire, not timed: exact on any machine, so a change that
    adds a transaction to every turn fails here, not only in the benchmark."""
    report = await turn_overhead.measure(clean_db, turns=2, runs=1)
    for kind, figures in report.kinds.items():
        budget = turn_overhead.AIMS[kind]["round_trips"]
        for window in (figures.early, figures.late):
            assert window["round_trips"] <= budget, f"{kind}: {window['round_trips']} > {budget}"
