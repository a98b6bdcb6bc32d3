// Package decision captures the decisions made in an agent session and keeps
// them: it finds decision candidates in the new part of a transcript (with the
// deterministic rules extractor or a model), picks the issue they belong to,
// drops the ones already posted, posts one comment per decision, saves what
// could not be posted for a retry, posts a session summary, promotes
// cross-issue decisions to the agent's memory folder and appends every
// approved decision to the approved-decision log (context/decisions.jsonl).
//
// Its files live in the state folder: sessions/<session_id>.json (what has
// been processed and captured), sessions/<session_id>.pending-decisions.json
// (approved decisions not yet posted) and the decisions log. The comment,
// summary and memory formats are shared with existing tools and kept exact.
//
// It prints nothing and asks nothing: the interactive choices come in through
// Flow's callbacks, so the CLI, the session-closer JSON contract and tests
// drive the same code.
package decision
