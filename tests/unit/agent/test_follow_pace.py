"""A follower's pace: the shortest pause while events flow and for a flush interval of silence,
then doubling while the run stays silent, never above the cap (issue 22: at most one poll a
second while idle)."""

from __future__ import annotations

from spotter.agent.stream.follow import POLL_MAX_SECONDS, POLL_MIN_SECONDS, next_pause
from spotter.agent.stream.log import FLUSH_SECONDS


def test_a_silent_run_is_polled_ever_more_slowly_up_to_the_cap() -> None:
    pauses = [next_pause(silent) for silent in range(1, 9)]
    assert pauses == [0.25, 0.25, 0.5, 1.0, 2.0, 2.0, 2.0, 2.0]
    assert max(pauses) == POLL_MAX_SECONDS <= 2.0


def test_silence_shorter_than_a_flush_keeps_the_shortest_pause() -> None:
    """A live run writes its events every FLUSH_SECONDS: between two writes nothing is new."""
    grace = [next_pause(silent) for silent in range(1, 3)]
    assert grace == [POLL_MIN_SECONDS] * 2 and sum(grace) >= FLUSH_SECONDS


def test_events_bring_the_shortest_pause_back() -> None:
    assert next_pause(0) == POLL_MIN_SECONDS == 0.25
