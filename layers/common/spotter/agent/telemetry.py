"""The agent's typed observability events: JSON log lines always, Sentry when SENTRY_DSN is set.

Everything passes through `scrub()` (via `log_event`) before it leaves the process: ids, counts,
codes and durations go out; what a person typed or a model wrote never does. sentry_sdk is
imported on first use, only when a DSN is configured, so a cold start without one pays nothing.
"""

from __future__ import annotations

from typing import Any, Literal

from spotter.config import Settings
from spotter.errors import ErrorCode
from spotter.observability import current_trace_id, log_event, scrub

AgentEventName = Literal[
    "agent.budget_exceeded",
    "agent.replay.repaired_tail",
    "agent.replay.violation",
    "agent.terminal_error",
    "agent.tool.executed",
    "agent.turn.finished",
    "agent.turn_failed",
]
SOFT_TERMINAL: frozenset[str] = frozenset({"provider_output_truncated", "max_turns_reached"})


class AgentTelemetry:
    def __init__(self, settings: Settings) -> None:
        self._dsn = settings.sentry_dsn
        self._environment = settings.environment
        self._sentry: Any = None

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
