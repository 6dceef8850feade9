-- The gym's core: exercise library, programs, workouts, class types, class sessions.
-- Later migrations add their own tables and call spotter_enable_org_rls() for each.

-- One way to protect an org-owned table: RLS on, one policy keyed on app.org_id.
CREATE FUNCTION spotter_enable_org_rls(target regclass) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', target);
  EXECUTE format('CREATE POLICY org_isolation ON %s USING (organization_id = spotter_current_org())'
                 ' WITH CHECK (organization_id = spotter_current_org())', target);
END $$;

-- Memberships are the gym's people (members and staff); children reference them org-safely.
ALTER TABLE org_memberships ADD CONSTRAINT org_memberships_id_org_key UNIQUE (id, organization_id);

CREATE TABLE exercises (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
  aliases text[] NOT NULL DEFAULT '{}',
  category text,
  equipment text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (id, organization_id)
);
CREATE UNIQUE INDEX exercises_name_key ON exercises (organization_id, lower(name)) WHERE deleted_at IS NULL;
CREATE INDEX exercises_name_trgm ON exercises USING gin (lower(name) gin_trgm_ops);
CREATE INDEX exercises_aliases_idx ON exercises USING gin (aliases);

CREATE TABLE programs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
  description text,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (id, organization_id)
);
CREATE INDEX programs_org_idx ON programs (organization_id) WHERE deleted_at IS NULL;

-- A workout's structure lives in `parts` (jsonb): [{name, note, window: {start, end}, optional,
-- sections: [{format, rounds, timeCapSeconds, intervalSeconds, movements: [...]}]}].
-- `source_text` is a coach's verbatim text, written only by workouts.parse.
CREATE TABLE workouts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  program_id uuid,
  scheduled_on date,
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  description text,
  parts jsonb NOT NULL DEFAULT '[]'::jsonb,
  source_text text,
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published')),
  created_by uuid REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (id, organization_id),
  FOREIGN KEY (program_id, organization_id) REFERENCES programs (id, organization_id)
);
CREATE INDEX workouts_program_day_idx ON workouts (organization_id, program_id, scheduled_on)
  WHERE deleted_at IS NULL;
CREATE INDEX workouts_title_trgm ON workouts USING gin (lower(title) gin_trgm_ops);

CREATE TABLE class_types (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 80),
  description text,
  default_duration_minutes integer NOT NULL DEFAULT 60 CHECK (default_duration_minutes BETWEEN 5 AND 480),
  default_capacity integer CHECK (default_capacity BETWEEN 1 AND 500),
  color text,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (id, organization_id)
);
CREATE UNIQUE INDEX class_types_name_key ON class_types (organization_id, lower(name)) WHERE deleted_at IS NULL;

CREATE TABLE class_sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  class_type_id uuid NOT NULL,
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  capacity integer CHECK (capacity BETWEEN 1 AND 500),
  location text,
  notes text,
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published', 'cancelled')),
  cancelled_at timestamptz,
  cancel_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (id, organization_id),
  FOREIGN KEY (class_type_id, organization_id) REFERENCES class_types (id, organization_id),
  CHECK (ends_at > starts_at)
);
CREATE INDEX class_sessions_time_idx ON class_sessions (organization_id, starts_at) WHERE deleted_at IS NULL;

CREATE TABLE class_session_coaches (
  organization_id uuid NOT NULL,
  session_id uuid NOT NULL,
  membership_id uuid NOT NULL,
  PRIMARY KEY (session_id, membership_id),
  FOREIGN KEY (session_id, organization_id) REFERENCES class_sessions (id, organization_id) ON DELETE CASCADE,
  FOREIGN KEY (membership_id, organization_id) REFERENCES org_memberships (id, organization_id)
);

SELECT spotter_enable_org_rls(t)
  FROM unnest(ARRAY['exercises', 'programs', 'workouts', 'class_types', 'class_sessions',
                    'class_session_coaches']::regclass[]) AS t;
