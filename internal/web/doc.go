// Package web serves baton's local dashboard: pages over what the other
// packages keep (the journal, resume briefings, decisions, context layers,
// worker runs, debates, the index and token usage), rendered on the server
// with html/template. Templates, the style sheet and a little plain
// JavaScript are embedded in the binary; there is no build step.
//
// It only reads: every page asks the package that owns the data (journal,
// resume, decision, recall, worker, debate, index, usage) and never writes a
// state file.
//
// It is safe by default. It listens on the loopback interface unless told
// otherwise, and another address needs a token (CheckBind). Every request
// passes the Guard: its Host must name this server, its Origin, when present,
// must be this server's, and, when a token is set, it must carry the token
// (cookie, header or query). Every response carries a Content-Security-Policy
// that allows no inline script and no inline style, and everything that came
// from a session is escaped by html/template, except the briefing's
// Markdown, which goldmark renders with any HTML in it shown as text and
// links kept only to http, https and mailto addresses and this server.
package web
