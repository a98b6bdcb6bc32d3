-- answers counts a session's Stop records that kept the agent's answer: its
-- messages when no transcript of it is indexed. Counted for what is indexed
-- already.
ALTER TABLE sessions ADD COLUMN answers INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET answers = (SELECT count(*) FROM docs
	WHERE docs.session = sessions.id AND docs.kind = 'journal' AND docs.event = 'Stop' AND docs.body != '');
