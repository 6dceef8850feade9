"""The agent: orchestrator state machine, resolution, replay, context, cost and the SSE events."""
