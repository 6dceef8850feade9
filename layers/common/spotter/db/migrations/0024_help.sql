-- The product help corpus ships with the code (spotter/help/articles); only its embeddings live
-- here, keyed by each article's content hash, so an edited article is simply a new key and a
-- deploy never needs a data migration. Product text, not tenant data: no organization, no RLS;
-- the app may read and add embeddings, never change or remove one.
CREATE TABLE help_article_embeddings (
  content_hash text NOT NULL,
  model text NOT NULL,
  embedding vector(1024) NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (content_hash, model)
);
REVOKE UPDATE, DELETE, TRUNCATE ON help_article_embeddings FROM spotter_app;
