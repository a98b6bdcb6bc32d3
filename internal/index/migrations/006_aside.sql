-- A message is indexed by what it does with its topic: a message that
-- settles something (a decision, a fix, a pin, a root cause) goes to said;
-- its questions, guesses and list items (links, a status digest) to the new
-- aside column, below prompt and text; logs, code and repeated lines, from a
-- prompt or an answer, to log. strong_fts keeps only the columns of the
-- strongest tiers, hi and said. The documents are read again: the next
-- catch-up rebuilds everything.
DROP TABLE docs_fts;
CREATE VIRTUAL TABLE docs_fts USING fts5(hi, said, prompt, text, aside, tool, log, meta, kind, sid, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2');
DROP TABLE strong_fts;
CREATE VIRTUAL TABLE strong_fts USING fts5(hi, said, kind, sid, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2');
DELETE FROM docs;
DELETE FROM sources;
DELETE FROM sessions;
-- settles marks those messages, so that search finds the sessions that
-- settled something among those its words are found in.
ALTER TABLE docs ADD COLUMN settles INTEGER NOT NULL DEFAULT 0;
CREATE INDEX docs_settled ON docs(session) WHERE settles = 1;
