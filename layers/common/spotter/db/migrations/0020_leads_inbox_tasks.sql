-- The CRM: lead pipelines with ordered stages, leads (contact fields, source, owner, tags) with
-- their notes and activity; the staff inbox (threads with a lead or a member); staff tasks.
-- People on the staff side (owner, author, assignee, actor) are users; the domain checks that
-- each is active staff of the org before writing.

CREATE TABLE lead_pipelines (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 80),
  -- where a lead created without a pipeline lands (its first stage)
  is_default boolean NOT NULL DEFAULT false,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (id, organization_id),
  CHECK (NOT is_default OR status = 'active')
);
CREATE UNIQUE INDEX lead_pipelines_name_key ON lead_pipelines (organization_id, lower(name))
  WHERE status = 'active';
CREATE UNIQUE INDEX lead_pipelines_default_key ON lead_pipelines (organization_id) WHERE is_default;

CREATE TABLE lead_stages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  pipeline_id uuid NOT NULL,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
  position smallint NOT NULL CHECK (position >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (id, organization_id),
  UNIQUE (id, pipeline_id),
  -- deferred, so a reorder can permute positions inside one statement's transaction
  CONSTRAINT lead_stages_position_key UNIQUE (pipeline_id, position) DEFERRABLE INITIALLY DEFERRED,
  FOREIGN KEY (pipeline_id, organization_id)
    REFERENCES lead_pipelines (id, organization_id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX lead_stages_name_key ON lead_stages (pipeline_id, lower(name));

CREATE TABLE leads (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  pipeline_id uuid NOT NULL,
  stage_id uuid NOT NULL,
  status text NOT NULL DEFAULT 'open'
    CHECK (status IN ('open', 'won', 'lost', 'converted', 'archived')),
  -- what restore puts back
  status_before_archive text CHECK (status_before_archive IN ('open', 'won', 'lost')),
  lost_reason text CHECK (length(lost_reason) <= 200),
  source text CHECK (length(source) BETWEEN 1 AND 60),
  owner_user_id uuid REFERENCES users (id),
  converted_user_id uuid REFERENCES users (id),
  first_name text NOT NULL CHECK (length(first_name) BETWEEN 1 AND 80),
  last_name text CHECK (length(last_name) <= 80),
  email text CHECK (length(email) <= 254),
  phone text CHECK (length(phone) <= 40),
  tags text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  converted_at timestamptz,
  archived_at timestamptz,
  UNIQUE (id, organization_id),
  FOREIGN KEY (pipeline_id, organization_id) REFERENCES lead_pipelines (id, organization_id),
  -- a lead's stage is always one of its own pipeline's stages
  FOREIGN KEY (stage_id, pipeline_id) REFERENCES lead_stages (id, pipeline_id),
  CHECK ((status = 'converted') = (converted_user_id IS NOT NULL AND converted_at IS NOT NULL)),
  CHECK ((status = 'archived') = (status_before_archive IS NOT NULL)),
  CHECK (email IS NOT NULL OR phone IS NOT NULL)
);
CREATE INDEX leads_board_idx ON leads (organization_id, pipeline_id, stage_id)
  WHERE status <> 'archived';
CREATE INDEX leads_tags_idx ON leads USING gin (tags);
-- one live lead per email: a second enquiry is the same person
CREATE UNIQUE INDEX leads_email_key ON leads (organization_id, lower(email))
  WHERE email IS NOT NULL AND status IN ('open', 'won', 'lost');

CREATE TABLE lead_notes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  lead_id uuid NOT NULL,
  author_user_id uuid REFERENCES users (id),
  body text NOT NULL CHECK (length(body) BETWEEN 1 AND 4000),
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (lead_id, organization_id) REFERENCES leads (id, organization_id) ON DELETE CASCADE
);
CREATE INDEX lead_notes_lead_idx ON lead_notes (lead_id, created_at DESC);

-- The lead's timeline, written by the domain beside each change; `detail` holds ids and
-- labels (stage names, tags, counts), never contact fields or message text.
CREATE TABLE lead_activities (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  lead_id uuid NOT NULL,
  actor_user_id uuid REFERENCES users (id),
  kind text NOT NULL CHECK (kind IN ('created', 'updated', 'moved', 'assigned', 'status',
                                     'tagged', 'untagged', 'note', 'emailed', 'converted',
                                     'archived', 'restored')),
  detail jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (lead_id, organization_id) REFERENCES leads (id, organization_id) ON DELETE CASCADE
);
CREATE INDEX lead_activities_lead_idx ON lead_activities (lead_id, created_at DESC);

-- The staff inbox: one thread per conversation with a lead or a member (a converted lead's
-- threads gain the member and keep the lead).
CREATE TABLE inbox_threads (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  lead_id uuid,
  membership_id uuid,
  subject text NOT NULL CHECK (length(subject) BETWEEN 1 AND 200),
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
  assignee_user_id uuid REFERENCES users (id),
  tags text[] NOT NULL DEFAULT '{}',
  last_message_at timestamptz NOT NULL DEFAULT now(),
  last_read_at timestamptz,
  closed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (id, organization_id),
  FOREIGN KEY (lead_id, organization_id) REFERENCES leads (id, organization_id) ON DELETE CASCADE,
  FOREIGN KEY (membership_id, organization_id)
    REFERENCES org_memberships (id, organization_id) ON DELETE CASCADE,
  CHECK (lead_id IS NOT NULL OR membership_id IS NOT NULL),
  CHECK ((status = 'closed') = (closed_at IS NOT NULL))
);
CREATE INDEX inbox_threads_list_idx ON inbox_threads (organization_id, status, last_message_at DESC);

CREATE TABLE inbox_messages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  thread_id uuid NOT NULL,
  direction text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
  author_user_id uuid REFERENCES users (id),
  body text NOT NULL CHECK (length(body) BETWEEN 1 AND 20000),
  -- an outbound reply's row in the outbox (delivery status lives there)
  outbox_message_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (thread_id, organization_id)
    REFERENCES inbox_threads (id, organization_id) ON DELETE CASCADE,
  CHECK ((direction = 'outbound') = (author_user_id IS NOT NULL))
);
CREATE INDEX inbox_messages_thread_idx ON inbox_messages (thread_id, created_at);

CREATE TABLE staff_tasks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  notes text CHECK (length(notes) <= 4000),
  due_on date,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done')),
  assignee_user_id uuid REFERENCES users (id),
  lead_id uuid,
  membership_id uuid,
  created_by_user_id uuid REFERENCES users (id),
  completed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (id, organization_id),
  FOREIGN KEY (lead_id, organization_id) REFERENCES leads (id, organization_id) ON DELETE CASCADE,
  FOREIGN KEY (membership_id, organization_id)
    REFERENCES org_memberships (id, organization_id) ON DELETE CASCADE,
  CHECK ((status = 'done') = (completed_at IS NOT NULL))
);
CREATE INDEX staff_tasks_open_idx ON staff_tasks (organization_id, due_on)
  WHERE status = 'open' AND deleted_at IS NULL;

SELECT spotter_enable_org_rls(t)
  FROM unnest(ARRAY['lead_pipelines', 'lead_stages', 'leads', 'lead_notes', 'lead_activities',
                    'inbox_threads', 'inbox_messages', 'staff_tasks']::regclass[]) AS t;

-- Converting a lead creates a member. The app role cannot insert a user row on its own (a user
-- is visible only through a membership of the current org, which cannot exist yet), so this
-- definer function creates exactly one invited member of the CURRENT org and nothing else.
-- The user's Clerk id is a placeholder until they accept the invitation.
CREATE FUNCTION spotter_create_invited_member(p_full_name text, p_email text)
  RETURNS TABLE (membership_id uuid, user_id uuid)
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
DECLARE
  v_org uuid := spotter_current_org();
  v_user uuid;
BEGIN
  IF v_org IS NULL THEN
    RAISE EXCEPTION 'no organization bound' USING ERRCODE = '42501';
  END IF;
  INSERT INTO users (clerk_user_id, full_name, email)
  VALUES ('invited_' || gen_random_uuid()::text, p_full_name, p_email)
  RETURNING id INTO v_user;
  RETURN QUERY
    INSERT INTO org_memberships (organization_id, user_id, role, status)
    VALUES (v_org, v_user, 'member', 'invited')
    RETURNING id, v_user;
END $$;
REVOKE ALL ON FUNCTION spotter_create_invited_member(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_create_invited_member(text, text) TO spotter_app;
