"""What one run carries between its phases, and the dependencies it is built from.

`RunStart` is what a run knows before it has a conversation (the caller, the clock read once,
the loop's configured model call, the usage it spends); `RunState` is a run in a conversation:
its id is never missing, its loop call is the one chosen with its history (`run.loop_call`),
and `append` is the one way a run writes to the transcript (the row, fenced on
the lease, then the same turn mirrored into `messages`, what the next model call replays), in
`transaction()`, the run's one kind of write transaction (pipelined, settling the usage of the
calls that ended since the last one).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from uuid import UUID

from spotter.agent import events as ev
from spotter.agent.cost import ModelCall, RunUsage
from spotter.agent.cost.model_policy import loop_call
from spotter.agent.errors import ConversationBusy
from spotter.agent.run_lease import LeaseClock, RunTx, refusal
from spotter.agent.stream.log import RunLog
from spotter.agent.telemetry import AgentEndpoint, AgentTelemetry
from spotter.agent.transcript import (
    MessageRole,
    StoredMessage,
    api_role,
    canonical,
    is_turn_context,
    queue_append,
    queue_complete_user_turn,
)
from spotter.auth.caller import Caller
from spotter.config import Settings
from spotter.db import Conn, Database
from spotter.observability import current_trace_id
from spotter.providers.email import EmailSender, RecordingSender
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
    sentry_transport: Any = None  # tests: a Sentry transport that keeps envelopes (no network)
    embedder: Embedder | None = None  # ambient RAG's semantic half (None: lexical only)
    # outbound mail (outbox delivery); the local one records, so nothing leaves a test or dev
    email_sender: EmailSender = field(default_factory=RecordingSender)

    def telemetry_for(self, caller: Caller, endpoint: AgentEndpoint) -> AgentTelemetry:
        return AgentTelemetry(
            self.settings,
            endpoint=endpoint,
            distinct_id=str(caller.user_id),
            transport=self.analytics_transport,
            sentry_transport=self.sentry_transport,
        )


@dataclass(frozen=True)
class CompletedUserTurn:
    """A run's own user turn with its turn context completed, owed to the database: written by
    the run's next transaction, before any loop call may read it."""

    message_id: UUID
    content: list[dict[str, Any]]


@dataclass(frozen=True)
class OwedSettle:
    """A batch of parallel reads settled in memory: their execution rows and the results turn,
    owed to the run's next transaction (the next call's hold, the next reply, or the last
    batch). Reads changed nothing outside the database's own rows, so a crash that loses them
    loses nothing a re-run does not give again (`run.tool_batch`)."""

    # their execution rows, queued on the transaction's connection (`agent.executions`)
    write_rows: Callable[[Conn], Awaitable[None]]
    result_id: UUID  # the results turn's id
    content: list[dict[str, Any]]


@dataclass(frozen=True)
class OwedReply:
    """The run's last reply (no tool calls), not yet written: it commits with the run's next
    transaction — the last event batch, which releases the lease, or the compaction kick's —
    and its `message_done` is said with `done` (`run.finish`)."""

    message_id: UUID
    content: list[dict[str, Any]]
    model: str
    stop_reason: str | None
    usage: dict[str, Any]
    done: ev.MessageDone


@dataclass(frozen=True)
class RunStart:
    """A run before it has a conversation: enough to fail, record usage and say `done`."""

    deps: AgentDeps
    caller: Caller
    call: ModelCall  # the configured loop call (the run's own is chosen with its history)
    registry: ToolRegistry
    telemetry: AgentTelemetry
    now: datetime
    run_id: UUID = field(default_factory=uuid.uuid4)
    trace_id: str = field(default_factory=current_trace_id)
    started: float = field(default_factory=time.perf_counter)
    usage: RunUsage = field(default_factory=RunUsage)
    log: RunLog = field(default_factory=RunLog)  # the run's SSE ids and persisted events
    lease: LeaseClock = field(default_factory=LeaseClock)  # when it last knew it held the lease
    owed_turns: list[CompletedUserTurn] = field(default_factory=list)  # not yet written
    owed_settles: list[OwedSettle] = field(default_factory=list)  # parallel reads, not yet written
    owed_replies: list[OwedReply] = field(default_factory=list)  # at most one: the last reply
    # the finish path's write found the conversation lost (its last reply unwritten): the
    # client is told `conversation_busy` rather than the `done` recorded before (`run.finish`)
    lost_to: list[ConversationBusy] = field(default_factory=list)

    @classmethod
    def begin(
        cls,
        deps: AgentDeps,
        caller: Caller,
        log: RunLog | None = None,
        *,
        endpoint: AgentEndpoint,
    ) -> RunStart:
        return cls(
            deps=deps,
            caller=caller,
            call=loop_call(deps.settings, caller.platform_tier),
            registry=deps.registry_for(caller),
            telemetry=deps.telemetry_for(caller, endpoint),
            now=deps.clock(),
            log=log or RunLog(),
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

    @property
    def owes_before_call(self) -> bool:
        """What must commit before the next model call starts: the calls' usage unless each is
        kept by its hold meanwhile (`RunUsage.durable`: the quick route's, whose bound prepare
        held, rides with the loop's reply — a process killed in between leaves the hold, and
        the sweep charges it), and a user turn whose context the run completed (no model reads
        a turn the database does not hold). Settled reads are not: they ride with the next
        write of the run, whatever it is (`run.tool_batch`)."""
        return not self.usage.durable or bool(self.owed_turns)

    @asynccontextmanager
    async def transaction(self, conversation_id: UUID | None = None) -> AsyncIterator[RunTx]:
        """The run's own writes, in one pipelined transaction that first records the usage of
        the calls that ended since the last one and drops their budget holds, and writes the
        user turn whose context the run completed — so each commits with the very next thing
        the run writes, in no round trip of its own. Its fences are read once it committed:
        `ConversationBusy` when the run lost the conversation (what it wrote unfenced, its
        usage included, stays written)."""
        caller = self.caller
        sent = time.monotonic()
        # (the finish path's last try names no conversation: a turn no model read stays as is)
        owed = list(self.owed_turns) if conversation_id is not None else []
        settles = list(self.owed_settles) if conversation_id is not None else []
        replies = list(self.owed_replies) if conversation_id is not None else []
        async with self.deps.db.pipelined_tx(caller.org_id) as conn:
            settlement = await self.usage.queue_settle(
                conn, caller.org_id, caller.user_id, self.now
            )
            tx = RunTx(conn)
            for turn in owed:
                assert conversation_id is not None
                completed = await queue_complete_user_turn(
                    conn, caller.org_id, conversation_id, turn.message_id,
                    run_id=self.run_id, content=turn.content,
                )  # fmt: skip
                tx.fence(completed)
            for settle in settles:
                assert conversation_id is not None
                await settle.write_rows(conn)
                results = await queue_append(
                    conn, caller.org_id, conversation_id, settle.result_id, run_id=self.run_id,
                    role="tool_result", content=settle.content, fenced=True,
                )  # fmt: skip
                tx.fence(results)
            for reply in replies:
                assert conversation_id is not None
                appended = await queue_append(
                    conn, caller.org_id, conversation_id, reply.message_id, run_id=self.run_id,
                    role="assistant", content=reply.content, model=reply.model,
                    stop_reason=reply.stop_reason, usage=reply.usage, fenced=True,
                )  # fmt: skip
                tx.fence(appended)
            yield tx
        self.usage.mark_settled(settlement)
        del self.owed_turns[: len(owed)]
        del self.owed_settles[: len(settles)]
        del self.owed_replies[: len(replies)]
        if not tx.fenced:
            return
        if not await tx.fences_held():
            assert conversation_id is not None, "a fenced write names its conversation"
            raise await refusal(self.deps.db, caller, conversation_id, self.run_id)
        self.lease.confirm(sent)


@dataclass
class RunState:
    start: RunStart
    conversation_id: UUID
    # what the next call replays, canonical (keys sorted: what the cached prefix needs)
    messages: list[dict[str, Any]] = field(default_factory=list)
    # the run's loop call, chosen once with its history (`run.loop_call.loop_history`)
    call: ModelCall = field(init=False)
    # the stored rows the run knows, its own appends included (theirs numbered after the last
    # known ordinal): what says, with no read, whether compaction is due when it settles
    history: list[StoredMessage] = field(default_factory=list)
    model_turns: int = 0
    truncated_once: bool = False
    resumed: bool = False  # a run resumed by resolving a suspended message
    suspended: bool = False  # the run ended waiting for a person (an approval, a pick)
    compaction_tried: bool = False  # one compaction attempt per run (the gate or the kick)
    wrote_records: bool = False  # a write tool succeeded: embeddings may be stale after the run
    # the replay starts at a compaction summary: earlier calls' ids are not in `messages`
    compacted: bool = False

    def __post_init__(self) -> None:
        self.call = self.start.call

    @property
    def deps(self) -> AgentDeps:
        return self.start.deps

    @property
    def caller(self) -> Caller:
        return self.start.caller

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
        return {**self.start.ids(self.conversation_id, self.model_turns), "model": self.call.model}

    def stream_events(self, last_seq: int) -> None:
        """The conversation is the caller's: from here the run's events are its stream."""
        self.start.log.bind(
            self.deps.db, self.caller.org_id, self.conversation_id, self.run_id, last_seq,
            run_transaction=self.log_transaction,
        )  # fmt: skip

    def transaction(self) -> AbstractAsyncContextManager[RunTx]:
        """`RunStart.transaction` in this run's conversation."""
        return self.start.transaction(self.conversation_id)

    @asynccontextmanager
    async def log_transaction(self) -> AsyncIterator[Conn]:
        """The event log's last batch (and the batch that says `done` before a compaction), in
        the run's own transaction: what the run still owes (the last reply, its usage) commits
        with it, before the lease is released. A run that lost its conversation meanwhile
        (a reply is owed only while the lease is trusted, `run.loop`, so only a run stalled
        past `FENCE_TRUST` since) keeps its batch; the client is told (`run.finish`)."""
        try:
            async with self.transaction() as tx:
                yield tx.conn
        except ConversationBusy as busy:
            self.start.lost_to.append(busy)
            self.telemetry.emit("agent.run.reply_unfenced", level="warning", **self.ids)

    def complete_user_turn(self, turn: StoredMessage, content: list[dict[str, Any]]) -> None:
        """The run's user turn `turn`, as replayed, gets `content` (the same words, its turn
        context completed) now, and in the database with the run's next transaction — before
        any loop call, which `run.metering` makes wait for it."""
        old = [b["text"] for b in turn.content if is_turn_context(b)]
        new = next(canonical(b) for b in content if is_turn_context(b))
        for index, message in enumerate(self.messages):
            blocks = message["content"]
            if old and any(b.get("text") == old[0] for b in blocks):
                replaced = [new if b.get("text") == old[0] else b for b in blocks]
                self.messages[index] = {**message, "content": replaced}
        self.history = [replace(m, content=content) if m.id == turn.id else m for m in self.history]
        self.start.owed_turns.append(CompletedUserTurn(turn.id, content))

    async def append(
        self,
        tx: RunTx,
        role: MessageRole,
        content: list[dict[str, Any]],
        *,
        model: str | None = None,
        stop_reason: str | None = None,
        usage: dict[str, Any] | None = None,
    ) -> UUID:
        """Append a turn to the stored transcript and to what this run replays next, fenced on
        the conversation's lease, which it refreshes (a run presumed dead and replaced writes
        nothing more: `tx` raises `ConversationBusy` once committed). Returns its id."""
        message_id = uuid.uuid4()
        cursor = await queue_append(
            tx.conn, self.caller.org_id, self.conversation_id, message_id, run_id=self.run_id,
            role=role, content=content, model=model, stop_reason=stop_reason, usage=usage,
            fenced=True,
        )  # fmt: skip
        tx.fence(cursor)
        self._mirror(message_id, role, content, model, stop_reason, usage)
        return message_id

    def owe_reply(
        self,
        content: list[dict[str, Any]],
        *,
        model: str,
        stop_reason: str | None,
        usage: dict[str, Any],
    ) -> OwedReply:
        """The run's last reply, as `append` would write it, left to the run's next
        transaction (`RunStart.transaction`): it is what the run's last event batch commits
        with, so a plain turn's reply, `done` and the lease's release are one commit. Mirrored
        into `messages` and `history` now, as `append` does."""
        message_id = uuid.uuid4()
        done = ev.MessageDone(message_id=str(message_id), stop_reason=stop_reason)
        owed = OwedReply(message_id, content, model, stop_reason, usage, done)
        self.start.owed_replies.append(owed)
        self._mirror(message_id, "assistant", content, model, stop_reason, usage)
        return owed

    def owe_settle(
        self, write_rows: Callable[[Conn], Awaitable[None]], content: list[dict[str, Any]]
    ) -> None:
        """A batch of parallel reads' rows and results turn, as a settle would write them, left
        to the run's next transaction (`RunStart.transaction`); mirrored into `messages` and
        `history` now, as `append` does, so the next call replays the results."""
        result_id = uuid.uuid4()
        self.start.owed_settles.append(OwedSettle(write_rows, result_id, content))
        self._mirror(result_id, "tool_result", content, None, None, None)

    def _mirror(
        self,
        message_id: UUID,
        role: MessageRole,
        content: list[dict[str, Any]],
        model: str | None,
        stop_reason: str | None,
        usage: dict[str, Any] | None,
    ) -> None:
        """A turn the run wrote (or owes), in what the next call replays and in the rows the
        run knows."""
        self.messages.append(canonical({"role": api_role(role), "content": content}))
        ordinal = self.history[-1].ordinal + 1 if self.history else 0
        row = StoredMessage(message_id, ordinal, role, content, model, self.run_id)
        self.history.append(replace(row, usage=usage, stop_reason=stop_reason))
