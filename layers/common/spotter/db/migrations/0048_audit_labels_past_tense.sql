-- Audit action labels are plain English past tense (issue 26 item 4). Rows written before the
-- derivation learnt `send` -> `sent` (and before a few labels that were not verbs were renamed)
-- are rewritten, so the admin audit view and any filter on `action` see ONE label per act: the
-- label is our vocabulary, derived from the tool, not what anyone wrote; resource, resource id,
-- actor, time and metadata (which names the tool) are untouched.
--
-- Every org's rows, by the schema's owner, whom FORCE ROW LEVEL SECURITY (0037) shows none
-- unbound: the force is lifted for this one statement and set again in the same transaction
-- (the migration's), which holds the table's lock throughout, so nobody sees it lifted.
ALTER TABLE audit_logs NO FORCE ROW LEVEL SECURITY;
UPDATE audit_logs AS a SET action = m.new
FROM (VALUES
  ('announcement.sended', 'announcement.sent'),
  ('message.sended', 'message.sent'),
  ('membership.invitations_sended', 'membership.invitations_sent'),
  ('membership.creditsed', 'membership.credits_set'),
  ('booking.no_show', 'booking.no_show_marked'),
  ('booking.waitlisted', 'booking.waitlist_joined'),
  ('automation.send_tested', 'automation.test_sent'),
  ('class_session.created_many', 'class_session.bulk_created'),
  ('workout.upserted', 'workout.saved')
) AS m (old, new)
WHERE a.action = m.old;
ALTER TABLE audit_logs FORCE ROW LEVEL SECURITY;
