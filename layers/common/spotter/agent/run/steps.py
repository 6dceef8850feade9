"""What each phase of a run says happened: typed steps instead of holders read afterwards.

A phase is a coroutine that puts the client's events on the `Emitter` it is given
(`agent.stream.channel`) and returns its step, one of a closed union (as openai-agents'
`NextStepFinalOutput | NextStepRunAgain | NextStepInterruption`). The caller matches on it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from spotter.agent.state import RunState
from spotter.agent.stream.channel import Emitter
from spotter.errors import ErrorCode


# One model turn of the loop (`run.loop`).
@dataclass(frozen=True)
class NextStepFinalOutput:
    """The model answered without tool calls: the run ends normally."""


@dataclass(frozen=True)
class NextStepRunAgain:
    """Tool results went back (or a cut-off batch was answered with errors): call again."""


@dataclass(frozen=True)
class NextStepInterruption:
    """A call waits for a person: the run ends; resolving the message resumes it."""


@dataclass(frozen=True)
class NextStepStop:
    """A soft terminal error ends the run (`provider_output_truncated`, the spend cap)."""

    code: ErrorCode


TurnStep = NextStepFinalOutput | NextStepRunAgain | NextStepInterruption | NextStepStop


# One tool batch (`run.tool_batch`).
@dataclass(frozen=True)
class BatchResults:
    """Every call settled: the results, in tool_use order."""

    results: list[dict[str, Any]]


@dataclass(frozen=True)
class BatchSuspended:
    """A call needs a person; its results go back only when the message is resolved."""


BatchStep = BatchResults | BatchSuspended


# The T1 quick lane (`run.quick_lane`).
@dataclass(frozen=True)
class LaneAnswered:
    """The lane answered the message: the loop does not run."""


@dataclass(frozen=True)
class LaneDeclined:
    """The loop runs, reading whatever the lane stored (a failed quick call and its error)."""


LaneStep = LaneAnswered | LaneDeclined


# A whole run (`run.finish`): send, resume and resolve are stages that return one of these; the
# finish path runs the next stage until one returns `RunEnded`, as pydantic-ai's graph runs the
# node each node returns until `End`.
@dataclass(frozen=True)
class RunEnded:
    """The run's end: `code` is its error (None: a normal end); `message` replaces the code's
    translated message (the budget's amount). `model_run=False`: nothing was asked of the model
    (a send refused by the budget), so `error?` + `done` with zero usage and no turn event."""

    code: ErrorCode | None = None
    message: str | None = None
    model_run: bool | None = None  # None: as the run went
    live_run_id: UUID | None = None  # conversation_busy: the run that holds the conversation


@dataclass(frozen=True)
class InConversation:
    """The run has its conversation (a send, once prepared): from here its failures and its
    `done` name it. `then` is the rest of the run."""

    state: RunState
    then: RunStage


@dataclass(frozen=True)
class ModelRun:
    """From here the run asks the model (a resolution that resumes): its end is a model run's
    end, with usage and `agent.turn.finished`. `then` is the rest of the run."""

    then: RunStage


RunStep = RunEnded | InConversation | ModelRun
RunStage = Callable[[Emitter], Awaitable[RunStep]]
