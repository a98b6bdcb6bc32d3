-- agent names the CLI a session ran in: '' for Claude Code, 'codex' or
-- 'gemini' for the sessions of those CLIs.
ALTER TABLE sessions ADD COLUMN agent TEXT NOT NULL DEFAULT '';
