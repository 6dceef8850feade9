-- Undo: one row per undone tool call, beside (not inside) the conversation's execution rows —
-- an undo is the user's act on a finished call, not a call the model made, so it never enters
-- the replayed history or a message's settled tool_result turn.
-- The unique execution_id is the undo's claim: one INSERT ... ON CONFLICT takes it, so a double
-- tap runs the inverse once; a failed undo (or one whose claim went stale) may be claimed again.
ALTER TABLE ai_tool_executions
  ADD CONSTRAINT ai_tool_executions_id_org_key UNIQUE (id, organization_id);

CREATE TABLE ai_tool_undos (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  conversation_id uuid NOT NULL,
  execution_id uuid NOT NULL UNIQUE,
  -- the inverse call as run: router, action and its validated input
  router text NOT NULL,
  action text NOT NULL,
  input jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('running', 'succeeded', 'failed')),
  claimed_at timestamptz NOT NULL,
  output jsonb,
  error jsonb,
  -- the inverse's audit row; it points at the original's through reverses_audit_log_id
  audit_log_id uuid REFERENCES audit_logs (id),
  finished_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (conversation_id, organization_id)
    REFERENCES ai_conversations (id, organization_id) ON DELETE CASCADE,
  FOREIGN KEY (execution_id, organization_id)
    REFERENCES ai_tool_executions (id, organization_id) ON DELETE CASCADE
);

SELECT spotter_enable_org_rls('ai_tool_undos');
