-- The assistant's loop model for one organization (issue 26 item 10): an operator's override
-- of the deployment's model (SPOTTER_LOOP_MODEL) and the tier's, e.g. an org pinned to a model
-- for a contract or trying a new one first. NULL: no override. Read with the run's first round
-- trip (agent.run.loop_call); a model id, never free text.
ALTER TABLE organizations
  ADD COLUMN ai_loop_model text
  CHECK (ai_loop_model ~ '^[a-z0-9][a-z0-9.:-]{0,99}$');
