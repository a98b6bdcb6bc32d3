-- strong_fts holds the prompts again, beside decisions and settling
-- messages: the prompt tier is ranked there, among the few documents with
-- text in those columns, not among every document of docs_fts. The
-- documents are read again: the next catch-up rebuilds everything.
DROP TABLE strong_fts;
CREATE VIRTUAL TABLE strong_fts USING fts5(hi, said, prompt, kind, sid, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2');
INSERT INTO docs_fts(docs_fts) VALUES('delete-all');
DELETE FROM docs;
DELETE FROM sources;
DELETE FROM sessions;
