"""What one run carries between its phases, and the dependencies it is built from.

`RunStart` is what a run knows before it has a conversation (the caller, the clock read once,
the loop's model call, the usage it spends); `RunState` is a run in a conversation: its id is
never missing, and `append` is the one way a run writes to the transcript (the row, then the
same turn mirrored into `messages`, what the next model call replays).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from uuid import UUID

from spotter.agent.cost import ModelCall, RunUsage, model_policy
from spotter.agent.run_lease import refresh_lease
from spotter.agent.telemetry import AgentTelemetry
from spotter.agent.transcript import Appended, MessageRole, api_role, append_message
from spotter.auth.caller import Caller
from spotter.config import Settings
from spotter.db import Conn, Database
from spotter.observability import current_trace_id
from spotter.tools.registry import ToolRegistry, registry_for_caller

if TYPE_CHECKING:
    # annotations only: the sweep and reads functions import approvals without the model SDK
    import httpx2

    from spotter.providers.anthropic import ModelClient
    from spotter.providers.embeddings import Embedder


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

    def telemetry_for(self, caller: Caller) -> AgentTelemetry:
        return AgentTelemetry(
            self.settings, distinct_id=str(caller.user_id), transport=self.analytics_transport
        )


@dataclass(frozen=True)
class RunStart:
    """A run before it has a conversation: enough to fail, record usage and say `done`."""

    deps: AgentDeps
    caller: Caller
    call: ModelCall
    registry: ToolRegistry
    telemetry: AgentTelemetry
    now: datetime
    run_id: UUID = field(default_factory=uuid.uuid4)
    trace_id: str = field(default_factory=current_trace_id)
    started: float = field(default_factory=time.perf_counter)
    usage: RunUsage = field(default_factory=RunUsage)

    @classmethod
    def begin(cls, deps: AgentDeps, caller: Caller) -> RunStart:
        return cls(
            deps=deps,
            caller=caller,
            call=model_policy(deps.settings)["spotterLoop"],
            registry=deps.registry_for(caller),
            telemetry=deps.telemetry_for(caller),
            now=deps.clock(),
        )

    def ids(self, conversation_id: UUID | None = None, turn_count: int = 0) -> dict[str, Any]:
        """What observability may name: ids and counts only."""
        return {
            "org_id": str(self.caller.org_id),
            "conversation_id": str(conversation_id) if conversation_id else None,
            "run_id": str(self.run_id),
            "model": self.call.model,
            "turn_count": turn_count,
        }

    def in_conversation(self, conversation_id: UUID, *, resumed: bool = False) -> RunState:
        return RunState(self, conversation_id, resumed=resumed)


@dataclass
class RunState:
    start: RunStart
    conversation_id: UUID
    messages: list[dict[str, Any]] = field(default_factory=list)  # what the next call replays
    model_turns: int = 0
    truncated_once: bool = False
    resumed: bool = False  # a run resumed by resolving a suspended message
    wrote_records: bool = False  # a write tool succeeded: embeddings may be stale after the run

    @property
    def deps(self) -> AgentDeps:
        return self.start.deps

    @property
    def caller(self) -> Caller:
        return self.start.caller

    @property
    def call(self) -> ModelCall:
        return self.start.call

    @property
    def registry(self) -> ToolRegistry:
        return self.start.registry

    @property
    def telemetry(self) -> AgentTelemetry:
        return self.start.telemetry

    @property
    def now(self) -> datetime:
        return self.start.now

    @property
    def run_id(self) -> UUID:
        return self.start.run_id

    @property
    def trace_id(self) -> str:
        return self.start.trace_id

    @property
    def usage(self) -> RunUsage:
        return self.start.usage

    @property
    def ids(self) -> dict[str, Any]:
        return self.start.ids(self.conversation_id, self.model_turns)

    async def append(
        self,
        conn: Conn,
        role: MessageRole,
        content: list[dict[str, Any]],
        *,
        model: str | None = None,
        stop_reason: str | None = None,
        usage: dict[str, Any] | None = None,
    ) -> Appended:
        """Append a turn to the stored transcript and to what this run replays next, fenced on
        the conversation's lease (a run presumed dead and replaced writes nothing more)."""
        await refresh_lease(conn, self.caller.org_id, self.conversation_id, self.run_id)
        appended = await append_message(
            conn, self.caller.org_id, self.conversation_id, run_id=self.run_id, role=role,
            content=content, model=model, stop_reason=stop_reason, usage=usage,
        )  # fmt: skip
        self.messages.append({"role": api_role(role), "content": content})
        return appended
