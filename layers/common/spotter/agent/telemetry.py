"""The agent's typed observability events: JSON log lines always, Sentry breadcrumbs when
SENTRY_DSN is set, PostHog in production when POSTHOG_API_KEY is set.

Everything passes through `scrub()` before it leaves the process: ids, counts, codes and
durations go out; what a person typed or a model wrote never does. sentry_sdk is imported on
first use, only when a DSN is configured, so a cold start without one pays nothing. PostHog
events are buffered and sent in one batch after the run's `done` reached the client.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

import httpx2

from spotter.config import Settings
from spotter.errors import ErrorCode
from spotter.observability import current_trace_id, log_event, scrub

AgentEventName = Literal[
    "agent.budget_exceeded",
    "agent.replay.repaired_tail",
    "agent.request_refused",
    "agent.replay.violation",
    "agent.run.suspended",
    "agent.run.stopped",
    "agent.side_call",
    "agent.terminal_error",
    "agent.tool.executed",
    "agent.turn.finished",
    "agent.turn_failed",
    "agent.usage.unrecorded",
    "agent.model_output.repaired",
    "agent.compaction.kick_failed",
]
# what product analytics receives (the rest stays in logs and Sentry)
ANALYTICS_EVENTS: frozenset[str] = frozenset(
    {"agent.turn.finished", "agent.tool.executed", "agent.terminal_error", "agent.budget_exceeded"}
)
ANALYTICS_TIMEOUT_S = 2.0
SOFT_TERMINAL: frozenset[str] = frozenset({"provider_output_truncated", "max_turns_reached"})


class AgentTelemetry:
    def __init__(
        self,
        settings: Settings,
        *,
        distinct_id: str | None = None,
        transport: httpx2.AsyncBaseTransport | None = None,
    ) -> None:
        self._dsn = settings.sentry_dsn
        self._environment = settings.environment
        self._sentry: Any = None
        production = settings.environment == "production"
        self._posthog_key = settings.posthog_api_key if production else None
        self._posthog_host = settings.posthog_host.rstrip("/")
        self._distinct_id = distinct_id
        self._transport = transport
        self._batch: list[dict[str, Any]] = []

    def _sentry_sdk(self) -> Any:
        if not self._dsn:
            return None
        if self._sentry is None:
            import sentry_sdk

            if not sentry_sdk.is_initialized():
                sentry_sdk.init(
                    dsn=self._dsn,
                    environment=self._environment,
                    send_default_pii=False,
                    include_local_variables=False,  # locals may hold what a person typed
                )
            self._sentry = sentry_sdk
        return self._sentry

    def emit(self, event: AgentEventName, *, level: str = "info", **fields: Any) -> None:
        log_event(event, level=level, **fields)
        if sdk := self._sentry_sdk():
            sdk.add_breadcrumb(category="agent", message=event, data=scrub(fields), level=level)
        if self._posthog_key and self._distinct_id and event in ANALYTICS_EVENTS:
            self._batch.append(
                {
                    "event": event,
                    "distinct_id": self._distinct_id,
                    "properties": {**scrub(fields), "trace_id": current_trace_id()},
                    "timestamp": datetime.now(UTC).isoformat(),
                }
            )

    async def flush(self) -> None:
        """Send buffered analytics events in one request; never fails the run."""
        if not (self._posthog_key and self._batch):
            return
        batch, self._batch = self._batch, []
        try:
            async with httpx2.AsyncClient(
                transport=self._transport, timeout=ANALYTICS_TIMEOUT_S
            ) as client:
                response = await client.post(
                    f"{self._posthog_host}/batch/",
                    json={"api_key": self._posthog_key, "batch": batch},
                )
                response.raise_for_status()
        except Exception as exc:
            log_event("agent.analytics_failed", level="warning", error=type(exc).__name__)

    def terminal_error(self, code: ErrorCode, **ids: Any) -> None:
        """Soft terminal errors do not raise, so they are reported explicitly, with ids only."""
        self.emit("agent.terminal_error", level="warning", code=code, **ids)
        sdk = self._sentry_sdk()
        if sdk is None or code not in SOFT_TERMINAL:
            return
        with sdk.new_scope() as scope:
            scope.set_tag("agent.code", code)
            scope.set_tag("agent.trace_id", current_trace_id())
            for key in ("conversation_id", "org_id", "model", "turn_count"):
                if key in ids:
                    scope.set_tag(f"agent.{key}", str(ids[key]))
            sdk.capture_message(f"agent {code}", level="warning")

    def failure(self, exc: BaseException, code: ErrorCode, **ids: Any) -> None:
        """A thrown failure: logged with its type (never its message), sent to Sentry as is."""
        self.emit("agent.turn_failed", level="error", code=code, error=type(exc).__name__, **ids)
        if (sdk := self._sentry_sdk()) is not None and code == "internal":
            with sdk.new_scope() as scope:
                scope.set_tag("agent.code", code)
                scope.set_tag("agent.trace_id", current_trace_id())
                sdk.capture_exception(exc)
