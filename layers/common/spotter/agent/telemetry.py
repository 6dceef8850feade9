"""The agent's typed observability events: JSON log lines always, Sentry when SENTRY_DSN is
set, PostHog in production when POSTHOG_API_KEY is set.

Everything passes through `scrub()` before it leaves the process: ids, counts, codes and
durations go out; what a person typed or a model wrote never does. sentry_sdk is imported on
first use, only when a DSN is configured, so a cold start without one pays nothing. Sentry gets
the spec's tags on every event it receives — `agent.endpoint` (which entry point ran),
`agent.trace_id`, `agent.code`, `agent.org_id` and the run's other ids — on soft terminal
errors and thrown failures alike; each event carries its own run's breadcrumbs only (kept on
the telemetry object, not on the process's scope), and a `before_send` hook drops what could
quote a person (an exception's message, request data, local variables). PostHog events are
buffered and sent in one batch after the run's `done` reached the client, and Sentry's queue
is flushed then too (a Lambda is frozen after the response).
"""

from __future__ import annotations

import asyncio
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
# Thrown failures worth a developer's look: our faults and a history repair could not make valid
# (a provider's outage or a refusal is not ours to fix, and is logged, not sent).
SENTRY_FAILURES: frozenset[str] = frozenset({"internal", "replay_integrity_violation"})
# Which entry point a run came through: Sentry's `agent.endpoint` tag.
AgentEndpoint = Literal["send", "confirm", "confirm_batch", "pick", "undo"]
MAX_BREADCRUMBS = 100
SENTRY_FLUSH_S = 2.0
# The ids a Sentry event may be tagged with (`agent.<key>`), when the run knows them.
_ID_TAGS = ("org_id", "conversation_id", "run_id", "model", "turn_count")


def scrub_sentry_event(event: Any, _hint: Any = None) -> Any:
    """Sentry's `before_send`: an exception keeps its type and stack, not its message (a
    driver's message can quote a row a person wrote); no request, user or extra data."""
    for value in (event.get("exception") or {}).get("values") or []:
        value["value"] = ""
        for frame in (value.get("stacktrace") or {}).get("frames") or []:
            frame.pop("vars", None)
    for key in ("request", "user", "extra"):
        event.pop(key, None)
    return event


class AgentTelemetry:
    def __init__(
        self,
        settings: Settings,
        *,
        endpoint: AgentEndpoint,
        distinct_id: str | None = None,
        transport: httpx2.AsyncBaseTransport | None = None,
        sentry_transport: Any = None,
    ) -> None:
        self._dsn = settings.sentry_dsn
        self._environment = settings.environment
        self._endpoint = endpoint
        self._sentry: Any = None
        self._sentry_transport = sentry_transport  # tests: a transport that keeps envelopes
        self._breadcrumbs: list[dict[str, Any]] = []  # this run's, for its own events only
        self._sent_to_sentry = False
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
                    # send_default_pii stays at its default (off): no user, IP or request data
                    include_local_variables=False,  # locals may hold what a person typed
                    # no logging, HTTP or framework hooks: every event is one we send, tagged
                    default_integrations=False,
                    auto_enabling_integrations=False,
                    before_send=scrub_sentry_event,
                    transport=self._sentry_transport,
                )
            self._sentry = sentry_sdk
        return self._sentry

    def emit(self, event: AgentEventName, *, level: str = "info", **fields: Any) -> None:
        log_event(event, level=level, **fields)
        if self._dsn and len(self._breadcrumbs) < MAX_BREADCRUMBS:
            self._breadcrumbs.append(
                {
                    "category": "agent",
                    "message": event,
                    "data": scrub(fields),
                    "level": level,
                    "timestamp": datetime.now(UTC),
                }
            )
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
        """Send buffered analytics events in one request, and wait (bounded) for Sentry's queue
        when this run sent it something; never fails the run."""
        if self._sent_to_sentry and self._sentry is not None:
            try:
                await asyncio.to_thread(self._sentry.flush, SENTRY_FLUSH_S)
            except Exception as exc:
                log_event("agent.sentry_flush_failed", level="warning", error=type(exc).__name__)
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
        if code in SOFT_TERMINAL:
            self._capture(code, ids, lambda sdk: sdk.capture_message(f"agent {code}", "warning"))

    def failure(self, exc: BaseException, code: ErrorCode, **ids: Any) -> None:
        """A thrown failure: logged with its type (never its message); sent to Sentry with its
        stack (its message dropped by `scrub_sentry_event`) and the same tags as a soft one."""
        self.emit("agent.turn_failed", level="error", code=code, error=type(exc).__name__, **ids)
        if code in SENTRY_FAILURES:
            self._capture(code, ids, lambda sdk: sdk.capture_exception(exc))

    def _capture(self, code: ErrorCode, ids: dict[str, Any], send: Any) -> None:
        """One Sentry event in a scope of its own: the spec's tags and this run's breadcrumbs."""
        sdk = self._sentry_sdk()
        if sdk is None:
            return
        with sdk.isolation_scope() as scope:
            scope.clear_breadcrumbs()  # whatever else this process recorded is not this run's
            for crumb in self._breadcrumbs:
                scope.add_breadcrumb(crumb)
            scope.set_tag("agent.endpoint", self._endpoint)
            scope.set_tag("agent.code", code)
            scope.set_tag("agent.trace_id", current_trace_id())
            for key in _ID_TAGS:
                if ids.get(key) is not None:
                    scope.set_tag(f"agent.{key}", str(ids[key]))
            send(sdk)
        self._sent_to_sentry = True
