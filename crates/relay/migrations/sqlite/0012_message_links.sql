-- Links the relay makes for a message (a webhook, a push, an e-mail) are made once per outbox
-- row and reused on every attempt: made_for names that row ('<channel>:<row id>'), and the
-- link's id is derived from it, so a retry finds the link it made before. NULL: a link a host
-- asked for (POST …/link), the only ones counted against a host's limit per elicitation.
ALTER TABLE koder_answer_links ADD COLUMN made_for TEXT NULL;
