-- Outbound mail names the execution row of the call that queued it, whatever the channel (an
-- agent call has a conversation and a tool_use id; an MCP call has neither). Delivery right
-- after the call committed finds its rows by this id, so it works the same for every channel.
ALTER TABLE outbox_messages
  ADD COLUMN execution_id uuid,
  ADD FOREIGN KEY (execution_id, organization_id)
    REFERENCES ai_tool_executions (id, organization_id) ON DELETE SET NULL (execution_id);
CREATE INDEX outbox_messages_execution_idx ON outbox_messages (organization_id, execution_id)
  WHERE execution_id IS NOT NULL;
