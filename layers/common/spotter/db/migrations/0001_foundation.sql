-- Foundation: tenancy, identity, the agent's conversation log, audit and usage.
-- Every org-owned table carries organization_id and row-level security keyed on app.org_id.

CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'spotter_app') THEN
    CREATE ROLE spotter_app NOLOGIN;
  END IF;
END $$;
-- The migrating user must be able to SET ROLE spotter_app (the pool does, per connection).
GRANT spotter_app TO CURRENT_USER;
GRANT USAGE ON SCHEMA public TO spotter_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO spotter_app;

-- NULL when unset (or reset to '' at the end of a transaction): then RLS shows nothing.
CREATE FUNCTION spotter_current_org() RETURNS uuid
  LANGUAGE sql STABLE
  AS $$ SELECT nullif(current_setting('app.org_id', true), '')::uuid $$;

CREATE TABLE organizations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  clerk_org_id text NOT NULL UNIQUE,
  name text NOT NULL,
  timezone text NOT NULL DEFAULT 'UTC',
  default_locale text NOT NULL DEFAULT 'en' CHECK (default_locale IN ('en', 'he', 'ru')),
  platform_tier text NOT NULL DEFAULT 'starter',
  org_type text NOT NULL DEFAULT 'gym',
  day_grain_programming boolean NOT NULL DEFAULT false,
  feature_flags jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  clerk_user_id text NOT NULL UNIQUE,
  full_name text NOT NULL,
  email text,
  locale text CHECK (locale IN ('en', 'he', 'ru')),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE org_memberships (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'coach', 'member')),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'invited', 'suspended', 'removed')),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, user_id)
);
CREATE INDEX org_memberships_user_idx ON org_memberships (user_id);

CREATE TABLE ai_conversations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id),
  title text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- compaction state: the latest summary's boundary, and a lease while one is in flight
  compacted_through_message_id uuid,
  compacting_since timestamptz,
  UNIQUE (id, organization_id)
);
CREATE INDEX ai_conversations_list_idx ON ai_conversations (organization_id, user_id, updated_at DESC);

CREATE TABLE ai_messages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  conversation_id uuid NOT NULL,
  run_id uuid NOT NULL,
  ordinal integer NOT NULL,
  role text NOT NULL CHECK (role IN ('user', 'assistant', 'tool_result', 'system_note')),
  content jsonb NOT NULL,
  page_context jsonb,
  model text,
  stop_reason text,
  usage jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (conversation_id, organization_id)
    REFERENCES ai_conversations (id, organization_id) ON DELETE CASCADE,
  UNIQUE (conversation_id, ordinal),
  UNIQUE (id, organization_id)
);
CREATE INDEX ai_messages_run_idx ON ai_messages (conversation_id, run_id);
CREATE INDEX ai_messages_notes_idx ON ai_messages (conversation_id, ordinal DESC)
  WHERE role = 'system_note';

CREATE TABLE audit_logs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  actor_clerk_id text NOT NULL,
  action text NOT NULL,
  resource text NOT NULL,
  resource_id text,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- an undo's row points at the row of the write it reverses
  reverses_audit_log_id uuid REFERENCES audit_logs (id),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_logs_org_time_idx ON audit_logs (organization_id, created_at DESC);
CREATE INDEX audit_logs_resource_idx ON audit_logs (organization_id, resource, resource_id);

CREATE TABLE ai_tool_executions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  conversation_id uuid NOT NULL,
  message_id uuid NOT NULL,
  -- position of the tool_use block within its assistant message: resolution runs in this order
  position integer NOT NULL,
  tool_use_id text NOT NULL,
  router text NOT NULL,
  action text NOT NULL,
  input jsonb NOT NULL DEFAULT '{}'::jsonb,
  confirmation jsonb,
  output jsonb,
  error jsonb,
  status text NOT NULL CHECK (status IN ('pending', 'running', 'succeeded', 'failed', 'rejected_by_user')),
  confirm_policy text NOT NULL DEFAULT 'never' CHECK (confirm_policy IN ('never', 'destructive', 'always')),
  kind text NOT NULL DEFAULT 'normal' CHECK (kind IN ('normal', 'user_picker')),
  discarded boolean NOT NULL DEFAULT false,
  claimed_at timestamptz,
  finished_at timestamptz,
  audit_log_id uuid REFERENCES audit_logs (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (conversation_id, organization_id)
    REFERENCES ai_conversations (id, organization_id) ON DELETE CASCADE,
  FOREIGN KEY (message_id, organization_id)
    REFERENCES ai_messages (id, organization_id) ON DELETE CASCADE,
  UNIQUE (conversation_id, tool_use_id),
  CHECK (status <> 'running' OR claimed_at IS NOT NULL)
);
CREATE INDEX ai_tool_executions_message_idx ON ai_tool_executions (message_id, position);
-- the sweep's scan: only running rows, oldest claim first
CREATE INDEX ai_tool_executions_running_idx ON ai_tool_executions (claimed_at)
  WHERE status = 'running';

CREATE TABLE ai_usage_daily (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id),
  day date NOT NULL,
  input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0,
  cache_read_tokens bigint NOT NULL DEFAULT 0,
  cache_write_5m_tokens bigint NOT NULL DEFAULT 0,
  cache_write_1h_tokens bigint NOT NULL DEFAULT 0,
  cost_usd_micros bigint NOT NULL DEFAULT 0,
  turns integer NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, day, user_id)
);

-- Row-level security: one policy per org-owned table.
ALTER TABLE organizations ENABLE ROW LEVEL SECURITY;
CREATE POLICY org_isolation ON organizations
  USING (id = spotter_current_org()) WITH CHECK (id = spotter_current_org());

ALTER TABLE users ENABLE ROW LEVEL SECURITY;
-- a user row is visible only through a membership of the current org
CREATE POLICY org_isolation ON users
  USING (EXISTS (SELECT 1 FROM org_memberships m
                 WHERE m.user_id = users.id AND m.organization_id = spotter_current_org()));

DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['org_memberships', 'ai_conversations', 'ai_messages',
                           'ai_tool_executions', 'audit_logs', 'ai_usage_daily'] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('CREATE POLICY org_isolation ON %I USING (organization_id = spotter_current_org())'
                   ' WITH CHECK (organization_id = spotter_current_org())', t);
  END LOOP;
END $$;

GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO spotter_app;
REVOKE ALL ON schema_migrations FROM spotter_app;

-- Authentication happens before an org is bound, so the app may resolve exactly one caller
-- (org + user + active-or-not membership) through this definer function and nothing more.
CREATE FUNCTION spotter_resolve_caller(p_clerk_org_id text, p_clerk_user_id text)
  RETURNS TABLE (organization_id uuid, user_id uuid, role text, membership_status text,
                 full_name text, user_locale text, org_name text, org_timezone text,
                 org_locale text, platform_tier text, org_type text,
                 day_grain_programming boolean, feature_flags jsonb)
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
    SELECT o.id, u.id, m.role, m.status, u.full_name, u.locale, o.name, o.timezone,
           o.default_locale, o.platform_tier, o.org_type, o.day_grain_programming, o.feature_flags
      FROM organizations o
      JOIN org_memberships m ON m.organization_id = o.id
      JOIN users u ON u.id = m.user_id
     WHERE o.clerk_org_id = p_clerk_org_id AND u.clerk_user_id = p_clerk_user_id
  $$;
REVOKE ALL ON FUNCTION spotter_resolve_caller(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_resolve_caller(text, text) TO spotter_app;
