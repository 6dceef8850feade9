-- The schedule's moving parts: who booked which session (and who waits), members' class credits,
-- the workouts a class type runs on a date, and a session's own workouts that override them.

-- A session either inherits its class type's daily programming or carries its own list
-- (possibly empty: "no workout for this one"). The flag tells the two apart.
ALTER TABLE class_sessions ADD COLUMN workouts_override boolean NOT NULL DEFAULT false;
ALTER TABLE class_sessions ADD COLUMN published_at timestamptz;

CREATE TABLE class_session_workouts (
  organization_id uuid NOT NULL,
  session_id uuid NOT NULL,
  workout_id uuid NOT NULL,
  position smallint NOT NULL,
  PRIMARY KEY (session_id, workout_id),
  FOREIGN KEY (session_id, organization_id) REFERENCES class_sessions (id, organization_id) ON DELETE CASCADE,
  FOREIGN KEY (workout_id, organization_id) REFERENCES workouts (id, organization_id)
);

-- Per (class type, local date): the workouts every session of that type on that date inherits.
CREATE TABLE daily_programming (
  organization_id uuid NOT NULL,
  class_type_id uuid NOT NULL,
  day date NOT NULL,
  workout_id uuid NOT NULL,
  position smallint NOT NULL,
  PRIMARY KEY (class_type_id, day, workout_id),
  FOREIGN KEY (class_type_id, organization_id) REFERENCES class_types (id, organization_id) ON DELETE CASCADE,
  FOREIGN KEY (workout_id, organization_id) REFERENCES workouts (id, organization_id)
);
CREATE INDEX daily_programming_day_idx ON daily_programming (organization_id, day);

-- One row per member per session; cancelled rows stay for history. The waitlist is the
-- 'waitlisted' rows ordered by waitlisted_at.
CREATE TABLE bookings (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  session_id uuid NOT NULL,
  membership_id uuid NOT NULL,
  status text NOT NULL CHECK (status IN ('booked', 'waitlisted', 'checked_in', 'no_show', 'cancelled')),
  waitlisted_at timestamptz,
  booked_at timestamptz,
  checked_in_at timestamptz,
  cancelled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (id, organization_id),
  FOREIGN KEY (session_id, organization_id) REFERENCES class_sessions (id, organization_id) ON DELETE CASCADE,
  FOREIGN KEY (membership_id, organization_id) REFERENCES org_memberships (id, organization_id),
  CHECK (status <> 'waitlisted' OR waitlisted_at IS NOT NULL)
);
CREATE UNIQUE INDEX bookings_active_key ON bookings (session_id, membership_id) WHERE status <> 'cancelled';
CREATE INDEX bookings_member_idx ON bookings (organization_id, membership_id);

-- Class credits as a ledger: the balance is the sum. A member with no rows is on an unlimited
-- plan (bookings cost nothing); one with rows pays one credit per booking, refunded on cancel.
CREATE TABLE member_credit_ledger (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL,
  membership_id uuid NOT NULL,
  delta integer NOT NULL CHECK (delta <> 0 AND delta BETWEEN -1000 AND 1000),
  reason text NOT NULL CHECK (length(reason) BETWEEN 1 AND 200),
  booking_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (membership_id, organization_id) REFERENCES org_memberships (id, organization_id),
  FOREIGN KEY (booking_id, organization_id) REFERENCES bookings (id, organization_id) ON DELETE CASCADE
);
CREATE INDEX member_credit_ledger_member_idx ON member_credit_ledger (organization_id, membership_id, created_at);

SELECT spotter_enable_org_rls(t)
  FROM unnest(ARRAY['class_session_workouts', 'daily_programming', 'bookings',
                    'member_credit_ledger']::regclass[]) AS t;
