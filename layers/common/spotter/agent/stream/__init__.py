"""Streams that survive the dashboard: a run's events on their own channel (`channel`), the
run's event log (ids, batches, liveness), following a conversation's stream from any instance,
stopping a live run, and the run that outlives its request (`driver`)."""

from spotter.agent.stream.channel import Emitter, RunChannel, stream_run
from spotter.agent.stream.driver import LiveRun, RunFactory, start_live
from spotter.agent.stream.follow import check_can_follow, follow
from spotter.agent.stream.log import Recorded, RunLog, release_ended, wire
from spotter.agent.stream.stop import request_stop

__all__ = [
    "Emitter",
    "LiveRun",
    "Recorded",
    "RunChannel",
    "RunFactory",
    "RunLog",
    "check_can_follow",
    "follow",
    "release_ended",
    "request_stop",
    "start_live",
    "stream_run",
    "wire",
]
