"""Compaction: when a conversation is summarized and what is kept (`plan`), how big the next
request is (`context_size`, spec 002), and the lease and summary row (`summary`)."""

from spotter.agent.compaction.context_size import effective_threshold, estimate_context_tokens
from spotter.agent.compaction.plan import CompactionPlan, plan_compaction
from spotter.agent.compaction.summary import (
    SUMMARIZER_SYSTEM,
    Compacted,
    Summary,
    compact,
    queue_take_lease,
    release_lease,
)

__all__ = [
    "SUMMARIZER_SYSTEM",
    "Compacted",
    "CompactionPlan",
    "Summary",
    "compact",
    "effective_threshold",
    "estimate_context_tokens",
    "plan_compaction",
    "queue_take_lease",
    "release_lease",
]
