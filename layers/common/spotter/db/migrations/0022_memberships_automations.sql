-- Memberships (plans, members' subscriptions to them, invitations) and email automations.
-- A member is an org_membership (role 'member'); subscriptions carry both the membership and
-- its user, so readers can join either way.

CREATE TABLE membership_plans (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
  price_cents integer NOT NULL CHECK (price_cents BETWEEN 0 AND 10000000),
  interval text NOT NULL CHECK (interval IN ('week', 'month', 'year')),
  -- NULL: unlimited classes
  credits_per_interval integer CHECK (credits_per_interval BETWEEN 1 AND 1000),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (id, organization_id)
);
CREATE UNIQUE INDEX membership_plans_name_key ON membership_plans (organization_id, lower(name))
  WHERE status = 'active';

-- A member's subscription history: at most one live (active or paused) row per member; a plan
-- change cancels the old row and starts a new one, so history and analytics see both.
CREATE TABLE member_subscriptions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  membership_id uuid NOT NULL,
  user_id uuid NOT NULL REFERENCES users (id),
  plan_id uuid NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'paused', 'cancelled')),
  started_at timestamptz NOT NULL DEFAULT now(),
  paused_at timestamptz,
  resume_on date,
  cancelled_at timestamptz,
  cancel_reason text CHECK (length(cancel_reason) <= 200),
  -- the subscription this one replaced (change_plan), so its undo can restore it
  replaces_id uuid REFERENCES member_subscriptions (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (id, organization_id),
  FOREIGN KEY (membership_id, organization_id) REFERENCES org_memberships (id, organization_id),
  FOREIGN KEY (plan_id, organization_id) REFERENCES membership_plans (id, organization_id),
  CHECK (status <> 'paused' OR paused_at IS NOT NULL),
  CHECK (status <> 'cancelled' OR cancelled_at IS NOT NULL)
);
CREATE UNIQUE INDEX member_subscriptions_live_key ON member_subscriptions (organization_id, membership_id)
  WHERE status <> 'cancelled';
CREATE INDEX member_subscriptions_plan_idx ON member_subscriptions (organization_id, plan_id, status);

-- An invitation to join as a member: written by `invite` (no mail), emailed by resend / bulk
-- invite through the outbox. Accepting it (Clerk sign-up) creates the membership.
CREATE TABLE member_invitations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  email text NOT NULL CHECK (length(email) BETWEEN 3 AND 320),
  full_name text CHECK (length(full_name) BETWEEN 1 AND 120),
  plan_id uuid,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'revoked')),
  invited_by uuid REFERENCES users (id),
  sent_count integer NOT NULL DEFAULT 0,
  last_sent_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (id, organization_id),
  FOREIGN KEY (plan_id, organization_id) REFERENCES membership_plans (id, organization_id)
);
CREATE UNIQUE INDEX member_invitations_pending_key ON member_invitations (organization_id, lower(email))
  WHERE status = 'pending';

-- Email automations: when `trigger` happens to a member, wait `delay_hours`, then send the
-- rendered template through the outbox. Drafts and inactive ones never send.
CREATE TABLE email_automations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
  trigger text NOT NULL CHECK (trigger IN ('member_joined', 'membership_paused',
    'membership_cancelled', 'member_inactive', 'invitation_pending')),
  delay_hours integer NOT NULL DEFAULT 0 CHECK (delay_hours BETWEEN 0 AND 8760),
  subject_template text NOT NULL CHECK (length(subject_template) BETWEEN 1 AND 200),
  body_template text NOT NULL CHECK (length(body_template) BETWEEN 1 AND 20000),
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'active', 'inactive')),
  activated_at timestamptz,
  created_by uuid REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  UNIQUE (id, organization_id)
);
CREATE UNIQUE INDEX email_automations_name_key ON email_automations (organization_id, lower(name))
  WHERE deleted_at IS NULL;

SELECT spotter_enable_org_rls(t)
  FROM unnest(ARRAY['membership_plans', 'member_subscriptions', 'member_invitations',
                    'email_automations']::regclass[]) AS t;

-- Erasure of a member: the global `users` row holds their name and email, and RLS shows it only
-- through the current org. When no other organization has a membership for that user, this
-- definer function anonymizes the row; otherwise the other gyms still know the person and only
-- this org's membership is removed. It refuses a user who is not a member of the current org.
CREATE FUNCTION spotter_anonymize_user(p_user uuid) RETURNS boolean
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM org_memberships
                  WHERE user_id = p_user AND organization_id = spotter_current_org()) THEN
    RAISE EXCEPTION 'user is not in the current organization';
  END IF;
  IF EXISTS (SELECT 1 FROM org_memberships
              WHERE user_id = p_user AND organization_id <> spotter_current_org()) THEN
    RETURN false;
  END IF;
  UPDATE users SET full_name = 'Erased member', email = NULL,
                   clerk_user_id = 'erased_' || id::text
   WHERE id = p_user;
  RETURN true;
END $$;
REVOKE ALL ON FUNCTION spotter_anonymize_user(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_anonymize_user(uuid) TO spotter_app;
