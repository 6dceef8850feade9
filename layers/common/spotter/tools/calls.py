"""The call types: a validated call (`ResolvedCall`) and what running it gave (`ToolOutcome`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from pydantic import BaseModel

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
    ok: bool
    output: Any = None
    error: dict[str, Any] | None = None
    audit_log_id: UUID | None = None

    @property
    def result_text(self) -> str:
        """What the model reads in the tool_result block."""
        return json.dumps(self.output if self.ok else self.error, ensure_ascii=False, default=str)
