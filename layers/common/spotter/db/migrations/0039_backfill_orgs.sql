-- The embedding backfill (`spotter embed-backfill`) runs for every org, but the app role sees
-- one org per transaction, and under FORCE ROW LEVEL SECURITY neither does the owner: this
-- definer function names the orgs that have search documents, and nothing else.
CREATE FUNCTION spotter_orgs_with_search_documents() RETURNS SETOF uuid
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$ SELECT DISTINCT organization_id FROM search_documents $$;
REVOKE ALL ON FUNCTION spotter_orgs_with_search_documents() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spotter_orgs_with_search_documents() TO spotter_app;
SELECT spotter_hand_to_definer('spotter_orgs_with_search_documents()');
