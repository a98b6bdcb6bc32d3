-- A prompt or an answer is kept in its transcript and in the journal: msg
-- keys the message (its session and the start of its text), and twin, on a
-- journal document, is the transcript document of the same message. A
-- journal document with a twin is not in the full-text tables: search finds
-- the message once, the transcript's document with the journal's worktree
-- and branch. The documents are read again: the next catch-up rebuilds
-- everything.
ALTER TABLE docs ADD COLUMN msg TEXT NOT NULL DEFAULT '';
ALTER TABLE docs ADD COLUMN twin INTEGER NOT NULL DEFAULT 0;
CREATE INDEX docs_msg ON docs(msg) WHERE msg != '';
CREATE INDEX docs_twin ON docs(twin) WHERE twin != 0;
INSERT INTO docs_fts(docs_fts) VALUES('delete-all');
INSERT INTO strong_fts(strong_fts) VALUES('delete-all');
DELETE FROM docs;
DELETE FROM sources;
DELETE FROM sessions;
