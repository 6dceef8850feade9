-- The outbox: every message that leaves our database (email today) is first a row here, written
-- in the tool's own transaction, so it commits together with the tool's execution outcome or not
-- at all. Delivery is a separate step that claims a row (queued → sending, a conditional update)
-- before it calls the provider, and records what the provider said. A row still `sending` past
-- its claim window was interrupted mid-call: it becomes `outcome_unknown` and is never re-sent
-- (the provider may have accepted it; sending again could mail the person twice).
CREATE TABLE outbox_messages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  -- what queued it: a tool (`messages.send`, `leads.bulk_email`) or an automation run
  source text NOT NULL CHECK (length(source) BETWEEN 1 AND 80),
  -- the agent call that queued it, when one did: the loader shows delivery per tool call
  conversation_id uuid,
  tool_use_id text,
  -- who it is for, when that is a known person or lead (erasure finds their rows by this)
  recipient_kind text NOT NULL DEFAULT 'address'
    CHECK (recipient_kind IN ('member', 'lead', 'staff', 'address')),
  recipient_id uuid,
  channel text NOT NULL DEFAULT 'email' CHECK (channel IN ('email')),
  to_address text NOT NULL CHECK (length(to_address) BETWEEN 3 AND 320),
  to_name text,
  subject text NOT NULL CHECK (length(subject) BETWEEN 1 AND 200),
  body text NOT NULL CHECK (length(body) BETWEEN 1 AND 20000),
  status text NOT NULL DEFAULT 'queued'
    CHECK (status IN ('queued', 'sending', 'delivered', 'failed', 'outcome_unknown')),
  claimed_at timestamptz,
  delivered_at timestamptz,
  provider_message_id text,
  error jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (id, organization_id),
  FOREIGN KEY (conversation_id, organization_id)
    REFERENCES ai_conversations (id, organization_id) ON DELETE SET NULL (conversation_id),
  CHECK (status <> 'sending' OR claimed_at IS NOT NULL),
  CHECK (status <> 'delivered' OR delivered_at IS NOT NULL)
);
CREATE INDEX outbox_messages_call_idx ON outbox_messages (organization_id, conversation_id, tool_use_id)
  WHERE conversation_id IS NOT NULL;
CREATE INDEX outbox_messages_recipient_idx ON outbox_messages (organization_id, recipient_kind, recipient_id)
  WHERE recipient_id IS NOT NULL;
-- the delivery and expiry scans: only rows still in flight
CREATE INDEX outbox_messages_pending_idx ON outbox_messages (status, created_at)
  WHERE status IN ('queued', 'sending');

SELECT spotter_enable_org_rls('outbox_messages');

-- The delivery sweep runs for every org, but the app role sees one org per transaction: this
-- definer function tells it which orgs have mail in flight, and nothing else.
CREATE FUNCTION spotter_orgs_with_outbox_work() RETURNS SETOF uuid
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
    SELECT DISTINCT organization_id FROM outbox_messages WHERE status IN ('queued', 'sending')
  $$;
REVOKE ALL ON FUNCTION spotter_orgs_with_outbox_work() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_orgs_with_outbox_work() TO spotter_app;
