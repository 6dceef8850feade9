-- Ambient RAG: one search document per program, workout, exercise and gym member, kept current
-- by triggers (so no write path can forget it), with a Voyage embedding filled in afterwards.
-- An embedding is stale while embedded_hash differs from content_hash.

CREATE TABLE search_documents (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  entity text NOT NULL CHECK (entity IN ('program', 'workout', 'exercise', 'member')),
  entity_id uuid NOT NULL,
  label text NOT NULL,
  detail text,
  body text NOT NULL,
  content_hash text GENERATED ALWAYS AS (md5(body)) STORED,
  embedding vector(1024),
  embedded_hash text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (entity, entity_id)
);
CREATE INDEX search_documents_body_trgm ON search_documents USING gin (lower(body) gin_trgm_ops);
CREATE INDEX search_documents_scope_idx ON search_documents (organization_id, entity);
CREATE INDEX search_documents_stale_idx ON search_documents (organization_id)
  WHERE embedded_hash IS DISTINCT FROM content_hash;
-- Per-org corpora are small (hundreds to a few thousand rows), so semantic search scans one
-- org's vectors exactly; an ANN index would trade recall for nothing here.
SELECT spotter_enable_org_rls('search_documents');

CREATE FUNCTION spotter_put_search_document(p_org uuid, p_entity text, p_id uuid, p_label text,
                                            p_detail text, p_body text, p_live boolean)
  RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF NOT p_live THEN
    DELETE FROM search_documents WHERE entity = p_entity AND entity_id = p_id;
    RETURN;
  END IF;
  INSERT INTO search_documents (organization_id, entity, entity_id, label, detail, body)
  VALUES (p_org, p_entity, p_id, p_label, p_detail, p_body)
  ON CONFLICT (entity, entity_id) DO UPDATE
    SET label = EXCLUDED.label, detail = EXCLUDED.detail, body = EXCLUDED.body, updated_at = now()
    WHERE (search_documents.label, search_documents.detail, search_documents.body)
          IS DISTINCT FROM (EXCLUDED.label, EXCLUDED.detail, EXCLUDED.body);
END $$;

CREATE FUNCTION spotter_index_program() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM spotter_put_search_document(OLD.organization_id, 'program', OLD.id, '', NULL, '', false);
    RETURN NULL;
  END IF;
  PERFORM spotter_put_search_document(NEW.organization_id, 'program', NEW.id, NEW.name, NULL,
    concat_ws(' ', NEW.name, NEW.description), NEW.deleted_at IS NULL AND NEW.status = 'active');
  RETURN NULL;
END $$;
CREATE TRIGGER programs_search AFTER INSERT OR UPDATE OR DELETE ON programs
  FOR EACH ROW EXECUTE FUNCTION spotter_index_program();

CREATE FUNCTION spotter_index_workout() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM spotter_put_search_document(OLD.organization_id, 'workout', OLD.id, '', NULL, '', false);
    RETURN NULL;
  END IF;
  PERFORM spotter_put_search_document(NEW.organization_id, 'workout', NEW.id, NEW.title,
    NEW.scheduled_on::text, concat_ws(' ', NEW.title, NEW.description), NEW.deleted_at IS NULL);
  RETURN NULL;
END $$;
CREATE TRIGGER workouts_search AFTER INSERT OR UPDATE OF title, description, scheduled_on, deleted_at OR DELETE
  ON workouts FOR EACH ROW EXECUTE FUNCTION spotter_index_workout();

CREATE FUNCTION spotter_index_exercise() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM spotter_put_search_document(OLD.organization_id, 'exercise', OLD.id, '', NULL, '', false);
    RETURN NULL;
  END IF;
  PERFORM spotter_put_search_document(NEW.organization_id, 'exercise', NEW.id, NEW.name,
    nullif(array_to_string(NEW.aliases, ', '), ''),
    concat_ws(' ', NEW.name, array_to_string(NEW.aliases, ' '), NEW.category),
    NEW.deleted_at IS NULL);
  RETURN NULL;
END $$;
CREATE TRIGGER exercises_search AFTER INSERT OR UPDATE OR DELETE ON exercises
  FOR EACH ROW EXECUTE FUNCTION spotter_index_exercise();

-- Gym members: memberships with role 'member'. A user's name lives on `users`, which has no
-- organization, so the users trigger is a definer function that updates every org's document.
CREATE FUNCTION spotter_index_membership() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE v_name text;
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM spotter_put_search_document(OLD.organization_id, 'member', OLD.id, '', NULL, '', false);
    RETURN NULL;
  END IF;
  SELECT full_name INTO v_name FROM users WHERE id = NEW.user_id;
  PERFORM spotter_put_search_document(NEW.organization_id, 'member', NEW.id, coalesce(v_name, ''),
    NULL, coalesce(v_name, ''), NEW.role = 'member' AND NEW.status = 'active' AND v_name IS NOT NULL);
  RETURN NULL;
END $$;
CREATE TRIGGER org_memberships_search AFTER INSERT OR UPDATE OR DELETE ON org_memberships
  FOR EACH ROW EXECUTE FUNCTION spotter_index_membership();

CREATE FUNCTION spotter_index_user_name() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  UPDATE search_documents d SET label = NEW.full_name, body = NEW.full_name, updated_at = now()
    FROM org_memberships m
   WHERE m.user_id = NEW.id AND d.entity = 'member' AND d.entity_id = m.id;
  RETURN NULL;
END $$;
CREATE TRIGGER users_search AFTER UPDATE OF full_name ON users
  FOR EACH ROW EXECUTE FUNCTION spotter_index_user_name();

-- Index what exists already.
SELECT spotter_put_search_document(organization_id, 'program', id, name, NULL,
  concat_ws(' ', name, description), deleted_at IS NULL AND status = 'active') FROM programs;
SELECT spotter_put_search_document(organization_id, 'workout', id, title, scheduled_on::text,
  concat_ws(' ', title, description), deleted_at IS NULL) FROM workouts;
SELECT spotter_put_search_document(organization_id, 'exercise', id, name,
  nullif(array_to_string(aliases, ', '), ''), concat_ws(' ', name, array_to_string(aliases, ' '), category),
  deleted_at IS NULL) FROM exercises;
SELECT spotter_put_search_document(m.organization_id, 'member', m.id, u.full_name, NULL, u.full_name,
  m.role = 'member' AND m.status = 'active') FROM org_memberships m JOIN users u ON u.id = m.user_id;
