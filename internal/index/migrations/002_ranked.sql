-- Search ranks a match by where its words were written: the text of a
-- document goes into the column of its kind of writing, weighted at search
-- time (hi: approved decisions and summaries; said: sentences of a prompt
-- or an answer that state a decision; prompt: what a person wrote;
-- text: what the agent wrote, runs, debates; tool: tool calls and their
-- output; log: logs and code pasted into a prompt; meta: event, role and
-- tool names). sid is the session id, so that a session's documents can be
-- asked for within the index. Text is stored folded (NFKC, lower case) and
-- English words are stemmed (porter: retry and retries are one word). The
-- documents are read again: the next catch-up rebuilds everything.
DROP TABLE docs_fts;
CREATE VIRTUAL TABLE docs_fts USING fts5(hi, said, prompt, text, tool, log, meta, kind, sid, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2');
DELETE FROM docs;
DELETE FROM sources;
DELETE FROM sessions;
