-- MCP calls that wait for a person (issue 24). A call over MCP that needs an approval is stored
-- `pending` like an agent call; what is new is how the person answers:
--   * inside the tools/call response stream (2025-11-25 elicitation): the answer's POST may reach
--     another instance than the one holding the stream, so it is handed over through
--     `mcp_elicitations` (nothing in process memory);
--   * on the dashboard's approval page (a client with no form elicitation): `approved_at` /
--     `approved_by` record the person's approval, and the client's retry of the same call runs it.
-- Every such question lapses at `expires_at`: the sweep closes the call failed `expired` (never
-- run), and `reported_at` records that the client was told how its call ended, so a late retry
-- gets that answer once and the next identical call is a new one.
ALTER TABLE ai_tool_executions
  ADD COLUMN expires_at timestamptz,
  ADD COLUMN approved_at timestamptz,
  ADD COLUMN approved_by uuid REFERENCES users (id),
  ADD COLUMN reported_at timestamptz,
  ADD CONSTRAINT ai_tool_executions_mcp_questions CHECK (
    channel = 'mcp' OR (expires_at IS NULL AND approved_at IS NULL AND reported_at IS NULL)
  );
CREATE INDEX ai_tool_executions_mcp_expiry_idx ON ai_tool_executions (expires_at)
  WHERE channel = 'mcp' AND status = 'pending';

-- One server→client `elicitation/create` sent in a tools/call response stream, and the client's
-- answer once it arrives (from any instance). Bound to the session that was asked (a hash of its
-- id) and to the call's owner: an answer from another session, user or org matches nothing.
CREATE TABLE mcp_elicitations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  execution_id uuid NOT NULL REFERENCES ai_tool_executions (id) ON DELETE CASCADE,
  actor_user_id uuid NOT NULL REFERENCES users (id),
  session_hash text NOT NULL,
  asked_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  expires_at timestamptz NOT NULL,
  answer jsonb,
  answered_at timestamptz,
  CHECK ((answer IS NULL) = (answered_at IS NULL))
);
CREATE INDEX mcp_elicitations_execution_idx ON mcp_elicitations (execution_id);
SELECT spotter_enable_org_rls('mcp_elicitations');  -- org isolation, forced (0037)
GRANT SELECT, INSERT, UPDATE, DELETE ON mcp_elicitations TO spotter_app;

-- The sweep runs for every org but sees one per transaction: which orgs have MCP questions that
-- lapsed, and nothing else.
CREATE FUNCTION spotter_orgs_with_expired_mcp_calls()
  RETURNS SETOF uuid
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
    SELECT DISTINCT organization_id FROM ai_tool_executions
     WHERE channel = 'mcp' AND status = 'pending' AND expires_at < clock_timestamp()
  $$;
REVOKE ALL ON FUNCTION spotter_orgs_with_expired_mcp_calls() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_orgs_with_expired_mcp_calls() TO spotter_app;
-- under FORCE ROW LEVEL SECURITY only spotter_definer sees every org's rows (0037)
SELECT spotter_hand_to_definer('spotter_orgs_with_expired_mcp_calls()');
