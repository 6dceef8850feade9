-- Issue 29: the dashboard's insights. Each org may override the thresholds the insights are
-- computed with (domain.insights.settings holds the defaults); an action taken from an insight
-- is linked to it on its execution row, so analytics can report what followed.
CREATE TABLE insight_settings (
  organization_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
  -- only the keys an org changed; the rest are the documented defaults
  thresholds jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(thresholds) = 'object'),
  updated_at timestamptz NOT NULL DEFAULT now()
);
SELECT spotter_enable_org_rls('insight_settings');

-- The insight kind the conversation was opened on (its user turn's page context), when it was.
ALTER TABLE ai_tool_executions ADD COLUMN insight_kind text
  CHECK (insight_kind IS NULL OR insight_kind ~ '^[a-z_]{1,40}$');
CREATE INDEX ai_tool_executions_insight_idx ON ai_tool_executions (organization_id, insight_kind)
  WHERE insight_kind IS NOT NULL;
