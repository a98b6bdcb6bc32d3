// Package cue gives recall at the point of need: a short block when a
// prompt touches earlier work (an approved decision, an earlier session of
// the repository, a file or command with history), and a note before a tool
// call whose file or command has history.
//
// The answers come from a small precomputed recall file,
// context/recall.idx in the state folder, and from the journal's newest
// records (a failure a few minutes ago is not in the file yet). The file is
// written by Build, off the hook's path (the detached `baton context` jobs,
// `baton context build`, `baton reindex`); the hook only reads it, in one
// read, and looks its terms up by binary search: no decoding of what does
// not match, no lock, no database, no network.
//
// It owns the recall file's format. The layers it reads (decisions, recent
// summaries) belong to package recall, the journal to package journal.
package cue
