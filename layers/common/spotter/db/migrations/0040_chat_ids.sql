-- An AI SDK dashboard names its chat with an id of its own making (`useChat({ id })`). The first
-- message of that chat creates the conversation with the id: from then on the id names that
-- conversation, of that org and that user, and no other. Unique across every org, so an id
-- already bound elsewhere can never be bound again (a foreign id is `not_found`, never a second
-- conversation behind the same name). Ids are what `/agent/chat/{id}/stream` carries in its path.
ALTER TABLE ai_conversations
  ADD COLUMN chat_id text UNIQUE,
  ADD CONSTRAINT ai_conversations_chat_id_shape CHECK (chat_id ~ '^[A-Za-z0-9_-]{1,128}$');
