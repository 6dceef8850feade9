-- The app logs in as itself, and row-level security binds every role but the database's
-- administrators (issue 22).
--
-- 1. The app's own login. No SET ROLE and no session SET: a transaction-pooling proxy (RDS
--    Proxy, PgBouncer in transaction mode) runs each transaction on whichever backend is free,
--    so anything a session sets would stay on one backend (pinning it, or surviving into another
--    client's transactions) and be missing on the others. Its settings are role defaults, which
--    every backend the proxy opens for this login applies at login. The password is no part of
--    a migration: the runner sets it from the environment's secret (db.migrate).
ALTER ROLE spotter_app LOGIN;
ALTER ROLE spotter_app SET statement_timeout = '15s';

-- 2. A second wall that cannot be lost silently: FORCE ROW LEVEL SECURITY binds the tables'
--    owner (the migration's login) as it binds the app, so a connection acting as the owner
--    sees one bound organization at most, and none unbound. (A superuser still sees
--    everything: on Aurora nobody is one, the master user is NOSUPERUSER NOBYPASSRLS.)
--
--    Definer functions ran as the owner to see across organizations (the sweeps' org lists,
--    resolving a caller before an org is bound, inviting or erasing a member). Under FORCE the
--    owner cannot, so they belong to spotter_definer: a role nobody logs in as or is a member
--    of, whose one policy per table lets exactly these reviewed functions see every row.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'spotter_definer') THEN
    CREATE ROLE spotter_definer NOLOGIN;
  END IF;
END $$;
GRANT USAGE ON SCHEMA public TO spotter_definer;

-- What every org-owned table gets besides its org_isolation policy.
CREATE FUNCTION spotter_force_org_rls(target regclass) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', target);
  EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %s TO spotter_definer', target);
  EXECUTE format('CREATE POLICY definer_access ON %s TO spotter_definer'
                 ' USING (true) WITH CHECK (true)', target);
END $$;

-- Later migrations' tables: one call still protects a table completely.
CREATE OR REPLACE FUNCTION spotter_enable_org_rls(target regclass) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', target);
  EXECUTE format('CREATE POLICY org_isolation ON %s USING (organization_id = spotter_current_org())'
                 ' WITH CHECK (organization_id = spotter_current_org())', target);
  PERFORM spotter_force_org_rls(target);
END $$;

DO $$
DECLARE t regclass;
BEGIN
  FOR t IN SELECT c.oid::regclass FROM pg_class c
            WHERE c.relnamespace = 'public'::regnamespace AND c.relrowsecurity LOOP
    PERFORM spotter_force_org_rls(t);
  END LOOP;
END $$;

-- A definer function is handed to spotter_definer right after it is created. ALTER ... OWNER
-- needs, for that moment only, the creator to be a member of the new owner and the new owner to
-- be allowed to create in the schema; afterwards nobody is a member and spotter_definer creates nothing.
CREATE FUNCTION spotter_hand_to_definer(fn regprocedure) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('GRANT spotter_definer TO %I', current_user);
  GRANT CREATE ON SCHEMA public TO spotter_definer;
  EXECUTE format('ALTER FUNCTION %s OWNER TO spotter_definer', fn);
  REVOKE CREATE ON SCHEMA public FROM spotter_definer;
  EXECUTE format('REVOKE spotter_definer FROM %I', current_user);
END $$;

DO $$
DECLARE f regprocedure;
BEGIN
  FOR f IN SELECT p.oid::regprocedure FROM pg_proc p
            WHERE p.pronamespace = 'public'::regnamespace AND p.prosecdef
              AND NOT EXISTS (SELECT 1 FROM pg_depend d
                               WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                                 AND d.deptype = 'e') LOOP
    PERFORM spotter_hand_to_definer(f);
  END LOOP;
END $$;
