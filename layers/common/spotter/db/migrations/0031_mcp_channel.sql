-- The MCP channel (issue 17): the same tools reached from MCP clients (Claude, ChatGPT, IDEs).
-- An MCP call has no conversation: its execution row stands alone, owned by the user who made it,
-- and is claimed and finished exactly like an agent call (pending -> running -> final).
ALTER TABLE ai_tool_executions
  ADD COLUMN channel text NOT NULL DEFAULT 'agent' CHECK (channel IN ('agent', 'mcp')),
  ADD COLUMN actor_user_id uuid REFERENCES users (id),
  ALTER COLUMN conversation_id DROP NOT NULL,
  ALTER COLUMN message_id DROP NOT NULL,
  ADD CONSTRAINT ai_tool_executions_channel_owner CHECK (
    (channel = 'agent' AND conversation_id IS NOT NULL AND message_id IS NOT NULL)
    OR (channel = 'mcp' AND conversation_id IS NULL AND message_id IS NULL
        AND actor_user_id IS NOT NULL)
  );
CREATE INDEX ai_tool_executions_mcp_actor_idx ON ai_tool_executions (organization_id, actor_user_id)
  WHERE channel = 'mcp';

-- An undo of an MCP-made write has no conversation either.
ALTER TABLE ai_tool_undos ALTER COLUMN conversation_id DROP NOT NULL;

-- Audit rows say which channel wrote them.
ALTER TABLE audit_logs
  ADD COLUMN channel text NOT NULL DEFAULT 'agent' CHECK (channel IN ('agent', 'mcp'));

-- Score slots: accepted only from the MCP channel (workouts.set_sections / workouts.upsert).
ALTER TABLE workouts ADD COLUMN scores jsonb;
