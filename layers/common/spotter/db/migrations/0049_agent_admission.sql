-- Issue 26 item 6: what is checked before a send (or a confirmation, a pick, an undo) writes
-- anything — the assistant's kill switches and the per-user send window.

-- A row turns the assistant off: for one organization, or (organization_id NULL) for every one.
-- The app only reads them (its org's row and the one for every org); an operator flips them
-- with `spotter agent-switch`, through spotter_switch_agent below.
CREATE TABLE agent_kill_switches (
  organization_id uuid REFERENCES organizations (id) ON DELETE CASCADE,
  reason text NOT NULL DEFAULT '',
  switched_off_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE NULLS NOT DISTINCT (organization_id)
);
ALTER TABLE agent_kill_switches ENABLE ROW LEVEL SECURITY;
CREATE POLICY org_or_everywhere ON agent_kill_switches FOR SELECT
  USING (organization_id IS NULL OR organization_id = spotter_current_org());
SELECT spotter_force_org_rls('agent_kill_switches');
REVOKE INSERT, UPDATE, DELETE ON agent_kill_switches FROM spotter_app;
GRANT SELECT ON agent_kill_switches TO spotter_app;

-- Flipping a switch names an org by its Clerk id, which nobody but the definer may look up
-- across orgs (FORCE ROW LEVEL SECURITY binds the schema's owner too). Only the login that owns
-- the schema (or a member of it: the operator's) may call it; the app is refused. Returns
-- false when no organization has that Clerk id.
CREATE FUNCTION spotter_switch_agent(clerk_org text, switch_off boolean, why text)
  RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
DECLARE
  org uuid;
BEGIN
  IF NOT pg_has_role(session_user,
                     (SELECT relowner FROM pg_class WHERE oid = 'agent_kill_switches'::regclass),
                     'MEMBER') THEN
    RAISE EXCEPTION 'only the schema''s owner flips the assistant''s kill switches'
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF clerk_org IS NOT NULL THEN
    SELECT id INTO org FROM organizations WHERE clerk_org_id = clerk_org;
    IF org IS NULL THEN
      RETURN false;
    END IF;
  END IF;
  IF switch_off THEN
    INSERT INTO agent_kill_switches (organization_id, reason) VALUES (org, why)
      ON CONFLICT (organization_id) DO UPDATE SET reason = excluded.reason;
  ELSE
    DELETE FROM agent_kill_switches WHERE organization_id IS NOT DISTINCT FROM org;
  END IF;
  RETURN true;
END $$;
SELECT spotter_hand_to_definer('spotter_switch_agent(text, boolean, text)');

-- One row per admitted send of a user in the current window (AGENT_SEND_WINDOW_SECONDS): a
-- window in Postgres, so every instance counts the same sends. The next admission of the same
-- user deletes the rows that left the window.
CREATE TABLE agent_sends (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL,
  sent_at timestamptz NOT NULL
);
CREATE INDEX agent_sends_user_idx ON agent_sends (organization_id, user_id, sent_at);
SELECT spotter_enable_org_rls('agent_sends');
GRANT SELECT, INSERT, DELETE ON agent_sends TO spotter_app;
REVOKE UPDATE ON agent_sends FROM spotter_app;
