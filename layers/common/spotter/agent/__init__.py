"""The assistant, by concept. Top level: `events` (the SSE events), `state` (AgentDeps and the
run), `call_record` (one tool call's row, events and telemetry), `errors`, `telemetry`,
`conversations` (the dashboard's reads). Subpackages: `run` (the loop by phase and the streaming
entry points), `approvals`, `transcript`, `compaction`, `prompting`, `cost`, `rag`.

Nothing is imported here: the reads and sweep functions import parts of the agent without the
model SDK, and a package's `__init__` runs whenever any of its modules is imported.
"""
