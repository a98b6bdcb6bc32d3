// Package recall keeps the context layers that bring an agent back up to
// speed after a restart, and answers requests for more.
//
// A route is one context stream: the agent sessions of a repository use the
// route "default"; a host that runs several streams (a bot with one per
// division) names the others. Each route has three layers, JSON lines under
// the state folder's context/ folder, appended to and never edited in place:
//
//   - L1, recent (l1.jsonl): Goal, Recent Actions and Open Loops of the last
//     few records, made when a session compacts or ends.
//   - L2, daily (l2.jsonl): Daily Goal, Threads Engaged, Decisions Made and
//     Pending Tasks of one day, built from the previous day's L2 and the
//     day's records. A rebuild of a day appends a newer entry for that day.
//   - L3, approved decisions (decisions.jsonl): one line per decision a
//     person approved; entries older than the archive age move to
//     context/archive/ and stay searchable.
//
// Other routes' files carry the route as a prefix: <route>-l1.jsonl, ….
//
// Push: Push reads the layers (and a little of the journal, to tell a
// crash from a clean restart) and assembles them within a character budget,
// L3 first, then L1, then L2, keeping whole entries only. It only reads: it
// is on the session-start hook's path. Summaries are made by Summarizers
// (extractive by default; LLM ones within a daily token budget per route),
// never on that path.
//
// Pull: Puller serves the on-demand targets (session_log, issue_body,
// thread_history, decisions, search) used by `baton mcp` and by the
// <<FETCH>> tags `baton fetch` finds in a model's output (ParseTags).
package recall
