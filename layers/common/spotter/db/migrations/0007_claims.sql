-- Claims: a tool call with effects outside our database (email, webhooks) is the only kind whose
-- outcome can be unknown after a crash; a database-only call commits its effect together with
-- its execution row, so a stale claim on one provably did not apply.
ALTER TABLE ai_tool_executions ADD COLUMN external_effects boolean NOT NULL DEFAULT false;

-- The sweep runs for every org, but the app role sees one org per transaction: this definer
-- function tells it which orgs have abandoned claims, and nothing else.
CREATE FUNCTION spotter_orgs_with_abandoned_claims(p_older_than interval)
  RETURNS SETOF uuid
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
    SELECT DISTINCT organization_id FROM ai_tool_executions
     WHERE status = 'running' AND claimed_at < clock_timestamp() - p_older_than
  $$;
REVOKE ALL ON FUNCTION spotter_orgs_with_abandoned_claims(interval) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_orgs_with_abandoned_claims(interval) TO spotter_app;
