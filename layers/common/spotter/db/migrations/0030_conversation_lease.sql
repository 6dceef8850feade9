-- One run per conversation: the live run's id and when it last showed signs of life. A run takes
-- the lease with one conditional UPDATE (free, its own, or older than the claims' 2 minutes),
-- refreshes it as it writes, and clears it at its end; a run that died leaves a lease that
-- expires by the same rule as its claims, so the lock survives crashes without a process lock.
ALTER TABLE ai_conversations
  ADD COLUMN live_run_id uuid,
  ADD COLUMN live_run_claimed_at timestamptz,
  ADD CONSTRAINT ai_conversations_lease_whole
    CHECK ((live_run_id IS NULL) = (live_run_claimed_at IS NULL));
