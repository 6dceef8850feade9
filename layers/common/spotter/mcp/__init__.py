"""The MCP server: the tool registry served to MCP clients (Claude, ChatGPT, IDEs).

Same roles, previews, confirmation cards, claims, audit and undo as the agent; the channel is
recorded as `mcp` on every execution and audit row. `server` builds the app, `catalog` the tool
list, `auth` the caller, `calls` one tools/call (inline, or the confirmation round trip),
`ledger` the execution rows.
"""
