-- Ordinals are allocated from the conversation row: one UPDATE ... RETURNING both serializes
-- concurrent writers (a live run, a resolution, compaction, the sweep) and hands each the next
-- free ordinal, in the same statement that inserts the message.
ALTER TABLE ai_conversations ADD COLUMN next_ordinal integer NOT NULL DEFAULT 0;
UPDATE ai_conversations c
   SET next_ordinal = coalesce((SELECT max(m.ordinal) + 1 FROM ai_messages m
                                 WHERE m.conversation_id = c.id), 0);
