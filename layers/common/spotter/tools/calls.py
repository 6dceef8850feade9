"""The call types: a validated call (`ResolvedCall`) and what running it gave (`ToolOutcome`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from pydantic import BaseModel

from spotter.tools.errors import ToolError
from spotter.tools.spec import ToolSpec

# Reserved: a model may try to supply its own confirmation card. It is never trusted.
PREVIEW_KEY = "__agentConfirmationPreview"


@dataclass(frozen=True)
class ResolvedCall:
    spec: ToolSpec
    args: BaseModel

    @property
    def executable_input(self) -> dict[str, Any]:
        """The validated arguments as stored and replayed: `{action, args}`."""
        return {
            "action": self.spec.action,
            "args": self.args.model_dump(mode="json", exclude_none=True, by_alias=True),
        }


@dataclass(frozen=True)
class ToolOutcome:
    """What a call gave: its output (and audit row), or its error. Built with `succeeded` or
    `failed`, so an outcome is never ok with an error or failed without one."""

    ok: bool
    output: Any = None
    error: ToolError | None = None
    audit_log_id: UUID | None = None

    @classmethod
    def succeeded(cls, output: Any, audit_log_id: UUID | None = None) -> ToolOutcome:
        return cls(ok=True, output=output, audit_log_id=audit_log_id)

    @classmethod
    def failed(cls, error: ToolError) -> ToolOutcome:
        return cls(ok=False, error=error)

    @property
    def payload(self) -> Any:
        """What the model reads in the tool_result block: the output, or the error's JSON."""
        if self.ok:
            return self.output
        return self.error.as_json() if self.error is not None else None

    @property
    def error_json(self) -> dict[str, Any] | None:
        """The error as stored and streamed (None when it succeeded)."""
        return None if self.ok or self.error is None else self.error.as_json()

    @property
    def result_text(self) -> str:
        """The tool_result block's text."""
        return json.dumps(self.payload, ensure_ascii=False, default=str)
