-- Issues, their labels and comments. Numbers and comment ids come from
-- AUTOINCREMENT, so they are never reused, even after a delete.
CREATE TABLE issues (
	number     INTEGER PRIMARY KEY AUTOINCREMENT,
	title      TEXT NOT NULL CHECK (title <> ''),
	body       TEXT NOT NULL DEFAULT '',
	state      TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'closed')),
	author     TEXT NOT NULL,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);

-- Label names compare without case, as on GitHub.
CREATE TABLE labels (
	name       TEXT NOT NULL PRIMARY KEY COLLATE NOCASE,
	created_at TEXT NOT NULL
);

CREATE TABLE issue_labels (
	issue INTEGER NOT NULL REFERENCES issues (number) ON DELETE CASCADE,
	label TEXT NOT NULL COLLATE NOCASE REFERENCES labels (name) ON DELETE CASCADE,
	PRIMARY KEY (issue, label)
) WITHOUT ROWID;

CREATE INDEX issue_labels_label ON issue_labels (label, issue);

CREATE TABLE comments (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	issue      INTEGER NOT NULL REFERENCES issues (number) ON DELETE CASCADE,
	body       TEXT NOT NULL,
	author     TEXT NOT NULL,
	created_at TEXT NOT NULL
);

CREATE INDEX comments_issue ON comments (issue, id);
