-- Forms: liability waivers, intake forms and health questionnaires that members sign.
-- A form is a family of versions. A member signs one exact version, so a published version
-- never changes: editing a published form opens the next version as a draft. At most one draft
-- and one published version per form; publishing supersedes the previous one.

CREATE TABLE forms (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('waiver', 'intake', 'health')),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
  -- members are expected to sign it: compliance status lists who has not signed the current version
  required boolean NOT NULL DEFAULT false,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
  archived_at timestamptz,
  created_by uuid REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (id, organization_id),
  CHECK ((status = 'archived') = (archived_at IS NOT NULL))
);
CREATE UNIQUE INDEX forms_name_key ON forms (organization_id, lower(name)) WHERE status = 'active';

-- `fields`: [{key, label, type, required, options?, help?}]; `body` is the text signed (a
-- waiver's terms) or shown above the questions.
CREATE TABLE form_versions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  form_id uuid NOT NULL,
  version integer NOT NULL CHECK (version >= 1),
  title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  body text NOT NULL DEFAULT '' CHECK (length(body) <= 20000),
  fields jsonb NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(fields) = 'array'),
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published', 'superseded')),
  published_at timestamptz,
  published_by uuid REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (form_id, version),
  UNIQUE (id, organization_id),
  FOREIGN KEY (form_id, organization_id) REFERENCES forms (id, organization_id) ON DELETE CASCADE,
  CHECK (status = 'draft' OR published_at IS NOT NULL)
);
CREATE UNIQUE INDEX form_versions_one_draft ON form_versions (form_id) WHERE status = 'draft';
CREATE UNIQUE INDEX form_versions_one_published ON form_versions (form_id) WHERE status = 'published';

-- One signing of one version. Submissions are legal records: the foreign keys have no cascade,
-- so a form or version with submissions cannot be deleted. Erasing a member clears every
-- personal column and keeps the row (counts stay true).
CREATE TABLE form_submissions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  form_id uuid NOT NULL,
  form_version_id uuid NOT NULL,
  membership_id uuid,
  signer_name text CHECK (length(signer_name) BETWEEN 1 AND 200),
  signer_email text CHECK (length(signer_email) <= 320),
  answers jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(answers) = 'object'),
  signed_at timestamptz NOT NULL DEFAULT now(),
  erased_at timestamptz,
  UNIQUE (id, organization_id),
  FOREIGN KEY (form_id, organization_id) REFERENCES forms (id, organization_id),
  FOREIGN KEY (form_version_id, organization_id) REFERENCES form_versions (id, organization_id),
  -- no SET NULL: a membership deleted before its submissions were erased would leave the
  -- signer's name behind, unlinked; erasure clears the submissions first (forms.erase_person)
  FOREIGN KEY (membership_id, organization_id) REFERENCES org_memberships (id, organization_id),
  CHECK (erased_at IS NULL OR (membership_id IS NULL AND signer_name IS NULL
                               AND signer_email IS NULL AND answers = '{}'::jsonb))
);
CREATE INDEX form_submissions_form_idx ON form_submissions (organization_id, form_id, signed_at DESC);
CREATE INDEX form_submissions_member_idx ON form_submissions (organization_id, membership_id);

SELECT spotter_enable_org_rls(t)
  FROM unnest(ARRAY['forms', 'form_versions', 'form_submissions']::regclass[]) AS t;
