-- Issue 22 item 6: a call's usage may wait for the run's next write while a row keeps its
-- bound (the quick route's, even on an unmetered tier, rides with the loop's reply), so a run
-- that dies first must not lose it: the sweep charges what a dead run still holds, once.
--
-- Whom a hold's call is billed to, as `ai_usage_daily` keys it (holds taken before this
-- migration name nobody: they expire by `HOLD_TTL` as before).
ALTER TABLE ai_budget_holds ADD COLUMN user_id uuid REFERENCES users (id);

-- The part of `cost_usd_micros` that is an estimate: holds of dead runs charged at their
-- amount (the call's bound, never less than it cost) because its actual usage never arrived.
ALTER TABLE ai_usage_daily ADD COLUMN estimated_usd_micros bigint NOT NULL DEFAULT 0
  CHECK (estimated_usd_micros >= 0);

-- The sweep runs for every org, but the app role sees one org per transaction: this definer
-- function tells it which orgs hold calls of runs that are gone (a hold older than the lease's
-- TTL whose run holds no live lease), and nothing else.
CREATE FUNCTION spotter_orgs_with_abandoned_holds(p_older_than interval)
  RETURNS SETOF uuid
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
    SELECT DISTINCT h.organization_id FROM ai_budget_holds h
     WHERE h.user_id IS NOT NULL AND h.held_at < clock_timestamp() - p_older_than
       AND NOT EXISTS (SELECT 1 FROM ai_conversations c
                        WHERE c.organization_id = h.organization_id AND c.live_run_id = h.run_id
                          AND c.live_run_claimed_at >= clock_timestamp() - p_older_than)
  $$;
REVOKE ALL ON FUNCTION spotter_orgs_with_abandoned_holds(interval) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_orgs_with_abandoned_holds(interval) TO spotter_app;
-- under FORCE ROW LEVEL SECURITY only spotter_definer sees every org's rows (0037)
SELECT spotter_hand_to_definer('spotter_orgs_with_abandoned_holds(interval)');
