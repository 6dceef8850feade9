-- Streams that survive the dashboard (issue 16).
--
-- ai_run_events: what a client needs to rebuild a run, persisted as it happens. One row is a
-- batch of consecutive events of one run (text deltas coalesced between flushes), covering the
-- SSE ids first_seq..last_seq, which increase per conversation. `events` holds the wire events
-- in order, each with its own id, so a replay after any id resumes exactly where the client was.
CREATE TABLE ai_run_events (
  organization_id uuid NOT NULL,
  conversation_id uuid NOT NULL,
  run_id uuid NOT NULL,
  first_seq bigint NOT NULL,
  last_seq bigint NOT NULL,
  events jsonb NOT NULL,
  -- the batch holds the run's `done`: a follower that reads it stops
  final boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (conversation_id, first_seq),
  CHECK (last_seq >= first_seq),
  FOREIGN KEY (conversation_id, organization_id)
    REFERENCES ai_conversations (id, organization_id) ON DELETE CASCADE
);
-- replay reads the batches ending after the client's last id
CREATE INDEX ai_run_events_tail_idx ON ai_run_events (conversation_id, last_seq);

SELECT spotter_enable_org_rls('ai_run_events');

-- Edit-before-approve: the call ran with arguments the user edited; the merged tool_result
-- turn tells the model so, with the final arguments (the stored `input`).
ALTER TABLE ai_tool_executions ADD COLUMN edited_by_user boolean NOT NULL DEFAULT false;

-- Stop: a request to end the conversation's live run (issue 14's lease, `live_run_id`), for
-- everyone watching, from any instance. It names the run, so it never touches a later one; the
-- run reads it with its next flush or heartbeat.
ALTER TABLE ai_conversations ADD COLUMN stop_requested_run_id uuid;
