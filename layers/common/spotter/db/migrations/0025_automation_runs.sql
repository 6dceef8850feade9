-- Automation runs: one row per (automation, recipient, triggering event), written in the same
-- transaction as the outbox row it queued. The unique key is the run's claim: a second sweep
-- (or a concurrent one) finds the event taken and queues nothing, so an event mails once.
CREATE TABLE email_automation_runs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  automation_id uuid NOT NULL,
  -- the member's membership id, or the invitation's id for invitation_pending
  recipient_id uuid NOT NULL,
  -- what happened, as the trigger names it (a subscription id, a last check-in time, ...)
  event_key text NOT NULL CHECK (length(event_key) BETWEEN 1 AND 100),
  outbox_message_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (automation_id, recipient_id, event_key),
  FOREIGN KEY (automation_id, organization_id)
    REFERENCES email_automations (id, organization_id) ON DELETE CASCADE,
  FOREIGN KEY (outbox_message_id, organization_id) REFERENCES outbox_messages (id, organization_id)
);
CREATE INDEX email_automation_runs_org_idx ON email_automation_runs (organization_id, created_at);

SELECT spotter_enable_org_rls('email_automation_runs');

-- The sweep runs automations for every org, but the app role sees one org per transaction:
-- this definer function names the orgs with an active automation, and nothing else.
CREATE FUNCTION spotter_orgs_with_active_automations() RETURNS SETOF uuid
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
    SELECT DISTINCT organization_id FROM email_automations
     WHERE status = 'active' AND deleted_at IS NULL
  $$;
REVOKE ALL ON FUNCTION spotter_orgs_with_active_automations() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_orgs_with_active_automations() TO spotter_app;
