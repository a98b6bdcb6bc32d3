-- The columns of the strongest tiers (hi, said, prompt: decisions,
-- summaries, sentences stating a decision, what a person wrote) again, in a
-- table of their own, with the kind and the session token. Its word lists
-- hold only the documents that have text there, a few percent of all, so
-- ranking those tiers reads and scores only them; docs_fts keeps every
-- column for the weaker tiers and the count. Both are filled as documents
-- are read: the next catch-up reads everything again.
CREATE VIRTUAL TABLE strong_fts USING fts5(hi, said, prompt, kind, sid, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2');
INSERT INTO docs_fts(docs_fts) VALUES('delete-all');
DELETE FROM docs;
DELETE FROM sources;
DELETE FROM sessions;
