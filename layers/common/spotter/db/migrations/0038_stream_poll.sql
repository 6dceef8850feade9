-- A resumable stream's follower polls with ONE statement (issue 22): no BEGIN/COMMIT around a
-- read-only check. The function binds the organization for its own implicit transaction (as
-- every transaction of the app does, `set_config(..., true)`) and then reads, as the caller:
-- row-level security applies as in any org transaction. Liveness and the events come from one
-- snapshot, so a run found not live has its final batch (committed with the lease's release)
-- among the events returned.
CREATE FUNCTION spotter_stream_poll(p_org uuid, p_conversation uuid, p_after bigint,
                                    p_lease_ttl interval)
  RETURNS TABLE (live boolean, batches jsonb)
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('app.org_id', p_org::text, true);
  RETURN QUERY
    SELECT EXISTS (SELECT 1 FROM ai_conversations c
                    WHERE c.id = p_conversation AND c.organization_id = p_org
                      AND c.live_run_claimed_at >= clock_timestamp() - p_lease_ttl),
           (SELECT coalesce(jsonb_agg(e.events ORDER BY e.first_seq), '[]'::jsonb)
              FROM ai_run_events e
             WHERE e.conversation_id = p_conversation AND e.organization_id = p_org
               AND e.last_seq > p_after);
END $$;
