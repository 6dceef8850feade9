-- Plans: program templates (reusable day sequences) and assignments of programs and workouts
-- to members and groups of members.

-- Overlap of a member's program assignments is refused by an exclusion constraint (ranges of
-- dates per member and program), which needs equality operators for uuid in GiST.
CREATE EXTENSION IF NOT EXISTS btree_gist;

CREATE TABLE program_templates (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
  description text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (id, organization_id)
);
CREATE UNIQUE INDEX program_templates_name_key ON program_templates (organization_id, lower(name))
  WHERE deleted_at IS NULL;

-- One workout blueprint per day offset (day 0 is the day the template is applied from); parts
-- have the shape of workouts.parts.
CREATE TABLE program_template_days (
  organization_id uuid NOT NULL,
  template_id uuid NOT NULL,
  day_offset integer NOT NULL CHECK (day_offset BETWEEN 0 AND 365),
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  description text,
  parts jsonb NOT NULL DEFAULT '[]'::jsonb,
  PRIMARY KEY (template_id, day_offset),
  FOREIGN KEY (template_id, organization_id)
    REFERENCES program_templates (id, organization_id) ON DELETE CASCADE
);

-- What one `apply` wrote and what it replaced, so its undo removes exactly that.
CREATE TABLE program_template_applications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  template_id uuid NOT NULL,
  program_id uuid NOT NULL,
  starts_on date NOT NULL,
  written_workout_ids uuid[] NOT NULL,
  replaced_workout_ids uuid[] NOT NULL DEFAULT '{}',
  applied_by uuid REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  undone_at timestamptz,
  FOREIGN KEY (template_id, organization_id) REFERENCES program_templates (id, organization_id),
  FOREIGN KEY (program_id, organization_id) REFERENCES programs (id, organization_id)
);

CREATE TABLE member_groups (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 80),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (id, organization_id)
);
CREATE UNIQUE INDEX member_groups_name_key ON member_groups (organization_id, lower(name))
  WHERE deleted_at IS NULL;

CREATE TABLE member_group_members (
  organization_id uuid NOT NULL,
  group_id uuid NOT NULL,
  membership_id uuid NOT NULL,
  added_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, membership_id),
  FOREIGN KEY (group_id, organization_id) REFERENCES member_groups (id, organization_id) ON DELETE CASCADE,
  FOREIGN KEY (membership_id, organization_id) REFERENCES org_memberships (id, organization_id)
);

-- A program or a workout, assigned to a member or to a group. A group's assignment is copied to
-- one row per member (`parent_id` = the group row), so per-member rules and reads see one shape.
CREATE TABLE assignments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  program_id uuid,
  workout_id uuid,
  membership_id uuid,
  group_id uuid,
  parent_id uuid,
  starts_on date NOT NULL,
  ends_on date,
  status text NOT NULL DEFAULT 'active'
    CHECK (status IN ('active', 'paused', 'ended', 'cancelled')),
  created_by uuid REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (id, organization_id),
  CHECK ((program_id IS NULL) <> (workout_id IS NULL)),
  CHECK ((membership_id IS NULL) <> (group_id IS NULL)),
  CHECK (parent_id IS NULL OR membership_id IS NOT NULL),
  CHECK (ends_on IS NULL OR ends_on >= starts_on),
  FOREIGN KEY (program_id, organization_id) REFERENCES programs (id, organization_id),
  FOREIGN KEY (workout_id, organization_id) REFERENCES workouts (id, organization_id),
  FOREIGN KEY (membership_id, organization_id) REFERENCES org_memberships (id, organization_id),
  FOREIGN KEY (group_id, organization_id) REFERENCES member_groups (id, organization_id),
  FOREIGN KEY (parent_id, organization_id) REFERENCES assignments (id, organization_id),
  -- The same program never twice for one member over overlapping dates while it is live.
  EXCLUDE USING gist (
    organization_id WITH =, membership_id WITH =, program_id WITH =,
    daterange(starts_on, ends_on, '[]') WITH &&
  ) WHERE (status IN ('active', 'paused') AND membership_id IS NOT NULL AND program_id IS NOT NULL)
);
CREATE INDEX assignments_member_idx ON assignments (organization_id, membership_id);
CREATE INDEX assignments_program_idx ON assignments (organization_id, program_id);
CREATE INDEX assignments_group_idx ON assignments (organization_id, group_id);
CREATE INDEX assignments_parent_idx ON assignments (organization_id, parent_id);

SELECT spotter_enable_org_rls(t)
  FROM unnest(ARRAY['program_templates', 'program_template_days', 'program_template_applications',
                    'member_groups', 'member_group_members', 'assignments']::regclass[]) AS t;
