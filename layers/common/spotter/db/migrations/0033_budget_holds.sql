-- Budget reservations: before a model call a run holds an upper bound of its cost, so concurrent
-- runs of one org see each other's calls in flight; the hold is deleted when the call's actual
-- usage is recorded (or released when it failed). A hold left by a killed process stops counting
-- after `HOLD_TTL` (agent.cost.holds), longer than any model call may stream.
CREATE TABLE ai_budget_holds (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  day date NOT NULL,
  run_id uuid NOT NULL,
  amount_usd_micros bigint NOT NULL CHECK (amount_usd_micros >= 0),
  held_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX ai_budget_holds_org_day_idx ON ai_budget_holds (organization_id, day);
ALTER TABLE ai_budget_holds ENABLE ROW LEVEL SECURITY;
CREATE POLICY org_isolation ON ai_budget_holds USING (organization_id = spotter_current_org())
  WITH CHECK (organization_id = spotter_current_org());
GRANT SELECT, INSERT, UPDATE, DELETE ON ai_budget_holds TO spotter_app;
