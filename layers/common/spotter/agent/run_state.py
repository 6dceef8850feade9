"""What one run carries between its phases, and the dependencies it is built from."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import httpx2

from spotter.agent.budget import usage_snapshot
from spotter.agent.model_policy import ModelCall, model_policy
from spotter.agent.telemetry import AgentTelemetry
from spotter.agent.usage import RunUsage
from spotter.auth.caller import Caller
from spotter.config import Settings
from spotter.db import Database
from spotter.observability import current_trace_id
from spotter.providers.anthropic import ModelClient
from spotter.providers.email import EmailSender, RecordingSender
from spotter.providers.embeddings import Embedder
from spotter.tools.registry import ToolRegistry, registry_for_caller

MAX_TURNS = 6


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class AgentDeps:
    """Everything a run needs from outside; tests substitute the client, registry or clock."""

    db: Database
    client: ModelClient
    settings: Settings
    registry_for: Callable[[Caller], ToolRegistry] = registry_for_caller
    clock: Callable[[], datetime] = utc_now
    analytics_transport: httpx2.AsyncBaseTransport | None = None  # tests: a PostHog stand-in
    embedder: Embedder | None = None  # ambient RAG's semantic half (None: lexical only)
    # outbound mail (outbox delivery); the local one records, so nothing leaves a test or dev
    email_sender: EmailSender = field(default_factory=RecordingSender)

    def telemetry_for(self, caller: Caller) -> AgentTelemetry:
        return AgentTelemetry(
            self.settings, distinct_id=str(caller.user_id), transport=self.analytics_transport
        )


@dataclass
class RunState:
    deps: AgentDeps
    caller: Caller
    call: ModelCall
    registry: ToolRegistry
    telemetry: AgentTelemetry
    now: datetime
    run_id: UUID = field(default_factory=uuid.uuid4)
    trace_id: str = field(default_factory=current_trace_id)
    started: float = field(default_factory=time.perf_counter)
    conversation_id: UUID | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    usage: RunUsage = field(default_factory=RunUsage)
    usage_recorded: bool = False
    model_turns: int = 0
    truncated_once: bool = False
    resumed: bool = False  # a run resumed by resolving a suspended message
    wrote_records: bool = False  # a write tool succeeded: embeddings may be stale after the run

    @classmethod
    def begin(cls, deps: AgentDeps, caller: Caller) -> RunState:
        return cls(
            deps=deps,
            caller=caller,
            call=model_policy(deps.settings)["spotterLoop"],
            registry=deps.registry_for(caller),
            telemetry=deps.telemetry_for(caller),
            now=deps.clock(),
        )

    async def spend_cap_reached(self) -> bool:
        """Today's recorded spend plus this run's unrecorded calls against the tier's cap."""
        async with self.deps.db.org_tx(self.caller.org_id) as conn:
            snapshot = await usage_snapshot(
                conn, self.caller.org_id, self.caller.platform_tier, self.now
            )
        unrecorded = 0 if self.usage_recorded else self.usage.cost_usd_micros
        return not snapshot.unmetered and (
            snapshot.spent_usd_micros + unrecorded >= snapshot.cap_usd_micros
        )

    @property
    def ids(self) -> dict[str, Any]:
        """What observability may name: ids and counts only."""
        return {
            "org_id": str(self.caller.org_id),
            "conversation_id": str(self.conversation_id) if self.conversation_id else None,
            "run_id": str(self.run_id),
            "model": self.call.model,
            "turn_count": self.model_turns,
        }
