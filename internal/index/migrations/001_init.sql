-- How far each source file has been read.
CREATE TABLE sources (
	path   TEXT PRIMARY KEY,
	kind   TEXT NOT NULL,
	offset INTEGER NOT NULL DEFAULT 0, -- bytes read (journal: journal offset)
	size   INTEGER NOT NULL DEFAULT 0,
	mtime  INTEGER NOT NULL DEFAULT 0, -- Unix nanoseconds
	head   INTEGER NOT NULL DEFAULT 0  -- hash of the file's first bytes
);

-- One searchable document: a journal record, a transcript message, a
-- decision, a summary, a worker run or a debate file.
CREATE TABLE docs (
	id       INTEGER PRIMARY KEY,
	kind     TEXT NOT NULL,
	source   TEXT NOT NULL,
	ref      TEXT NOT NULL,
	session  TEXT NOT NULL DEFAULT '',
	ts       INTEGER NOT NULL DEFAULT 0, -- Unix milliseconds
	worktree TEXT NOT NULL DEFAULT '',
	branch   TEXT NOT NULL DEFAULT '',
	file     TEXT NOT NULL DEFAULT '',
	issue    INTEGER NOT NULL DEFAULT 0,
	event    TEXT NOT NULL DEFAULT '',
	tool     TEXT NOT NULL DEFAULT '',
	title    TEXT NOT NULL DEFAULT '',
	body     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX docs_source ON docs(source);
CREATE INDEX docs_session ON docs(session, ts);
CREATE INDEX docs_kind_ts ON docs(kind, ts);

-- The words of title and body, with CJK characters spaced apart so that
-- Japanese is found by any run of characters, and the kind, so that a kind
-- filter is part of the match. The text itself is in docs.
CREATE VIRTUAL TABLE docs_fts USING fts5(title, body, kind, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');

CREATE TABLE sessions (
	id         TEXT PRIMARY KEY,
	worktree   TEXT NOT NULL DEFAULT '',
	branch     TEXT NOT NULL DEFAULT '',
	first      INTEGER NOT NULL DEFAULT 0,
	last       INTEGER NOT NULL DEFAULT 0,
	records    INTEGER NOT NULL DEFAULT 0,
	prompts    INTEGER NOT NULL DEFAULT 0,
	tools      INTEGER NOT NULL DEFAULT 0,
	messages   INTEGER NOT NULL DEFAULT 0,
	transcript TEXT NOT NULL DEFAULT ''
);
CREATE INDEX sessions_last ON sessions(last);
