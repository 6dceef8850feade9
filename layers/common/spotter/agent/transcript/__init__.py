"""The conversation's log: appending turns (the one place that allocates ordinals), loading a
conversation, what a stored user turn looks like, and replaying stored rows to the model
(the projection after a compaction, slimming, alternation, validation and repair)."""

from spotter.agent.transcript.history import (
    StoredMessage,
    load_history,
    queue_history,
    read_history,
    start_conversation,
)
from spotter.agent.transcript.message_log import (
    Appended,
    MessageRole,
    UserTurnGuard,
    append_message,
    queue_append,
    queue_complete_user_turn,
)
from spotter.agent.transcript.projection import latest_note, projection
from spotter.agent.transcript.replay import (
    INTERRUPTED,
    api_role,
    block_types,
    canonical,
    repair_replay,
    replay_messages,
    tool_result_block,
    validate_replay,
)
from spotter.agent.transcript.storable import StorableReply, storable_reply
from spotter.agent.transcript.turn_context import (
    TURN_CONTEXT_TAG,
    has_turn_context,
    is_turn_context,
    strip_turn_context,
    visible_text,
    visible_user_text,
)

__all__ = [
    "INTERRUPTED",
    "TURN_CONTEXT_TAG",
    "Appended",
    "MessageRole",
    "StorableReply",
    "StoredMessage",
    "UserTurnGuard",
    "api_role",
    "append_message",
    "block_types",
    "canonical",
    "has_turn_context",
    "is_turn_context",
    "latest_note",
    "load_history",
    "projection",
    "queue_append",
    "queue_complete_user_turn",
    "queue_history",
    "read_history",
    "repair_replay",
    "replay_messages",
    "start_conversation",
    "storable_reply",
    "strip_turn_context",
    "tool_result_block",
    "validate_replay",
    "visible_text",
    "visible_user_text",
]
