-- Issue 26 item 6: what is checked before a send (or a confirmation, a pick, an undo) writes
-- anything — the assistant's kill switches and the per-user send window.

-- A row turns the assistant off: for one organization, or (organization_id NULL) for every one.
-- The app only reads them; an operator flips them as the owner (`spotter agent-switch`).
CREATE TABLE agent_kill_switches (
  organization_id uuid REFERENCES organizations (id) ON DELETE CASCADE,
  reason text NOT NULL DEFAULT '',
  switched_off_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE NULLS NOT DISTINCT (organization_id)
);
ALTER TABLE agent_kill_switches ENABLE ROW LEVEL SECURITY;
CREATE POLICY org_or_everywhere ON agent_kill_switches FOR SELECT
  USING (organization_id IS NULL OR organization_id = spotter_current_org());
REVOKE INSERT, UPDATE, DELETE ON agent_kill_switches FROM spotter_app;
GRANT SELECT ON agent_kill_switches TO spotter_app;

-- One row per admitted send of a user in the current window (AGENT_SEND_WINDOW_SECONDS): a
-- window in Postgres, so every instance counts the same sends. The next admission of the same
-- user deletes the rows that left the window.
CREATE TABLE agent_sends (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL,
  sent_at timestamptz NOT NULL
);
CREATE INDEX agent_sends_user_idx ON agent_sends (organization_id, user_id, sent_at);
ALTER TABLE agent_sends ENABLE ROW LEVEL SECURITY;
CREATE POLICY org_isolation ON agent_sends USING (organization_id = spotter_current_org())
  WITH CHECK (organization_id = spotter_current_org());
GRANT SELECT, INSERT, DELETE ON agent_sends TO spotter_app;
REVOKE UPDATE ON agent_sends FROM spotter_app;
