// Package modelserver is a scripted Anthropic Messages API server for tests.
// It lets baton's tests run a real agent CLI or a real API client fully
// offline: point ANTHROPIC_BASE_URL at Server.URL and script what the model
// answers.
//
//	s := modelserver.New(t,
//		modelserver.ToolUse("Bash", map[string]string{"command": "echo hi", "description": "say hi"}),
//		modelserver.Text("all done"),
//	)
//	// … run the client against s.URL …
//	if got := s.Requests()[1].LastToolResult(); got != "hi" { … }
//
// # Wire format
//
// POST /v1/messages (any query, e.g. ?beta=true) is answered as the real API
// does: with "stream": true as server-sent events (content-type
// text/event-stream; message_start, ping, content_block_start,
// content_block_delta with text_delta or input_json_delta pieces of at most
// 16 bytes, content_block_stop, message_delta with stop_reason and usage,
// message_stop), otherwise as one JSON message. Messages carry "msg_01…"
// ids, tool_use blocks "toolu_01…" ids, responses a request-id header, and
// usage has input_tokens, output_tokens, cache_creation_input_tokens and
// cache_read_input_tokens. POST /v1/messages/count_tokens answers
// {"input_tokens": n}. Anything else is answered with the API's error body
// (404 not_found_error, 405, or 400 invalid_request_error for a body that
// is not a Messages request). A Fault turn answers an HTTP error with the
// API's error body, {"type":"error","error":{"type":…,"message":…},
// "request_id":…}, and a retry-after header when asked.
//
// # Which requests take scripted turns
//
// Only requests of the agent's main conversation loop (KindMain) take turns,
// in arrival order; Requests lists them. Everything else is a side request,
// recorded in AllRequests and answered by the side handler (DefaultSide
// unless OnSide replaces it), so side traffic never shifts the script:
//   - a Messages request offering no tools (KindUtility), such as a title
//     or a summary of fetched text: answered Text(Fallback);
//   - a compaction request (KindCompact), sent by "/compact" or automatic
//     compaction: it offers the main loop's tools, but its prompt asks for
//     "a detailed summary of the conversation so far"; answered with an
//     <analysis> and a <summary> block holding CompactSummary;
//   - token counting (KindCountTokens).
//
// Once the script has run out, main-loop requests are answered
// Text(Fallback), so a client that asks once more than scripted still ends
// cleanly; Remaining tells whether every turn was used.
//
// # What Claude Code 2.1.328 sends
//
// Observed with the real CLI in print mode (-p), with
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1:
//   - Only POST /v1/messages?beta=true, always streaming, with
//     x-api-key, anthropic-version 2023-06-01, an anthropic-beta list and
//     user-agent "claude-cli/2.1.328 (external, sdk-cli)"; no token
//     counting, title or other side request, and no connection to any
//     other address.
//   - One request per model turn: the first carries the prompt; after a
//     tool_use it sends the whole conversation again with a user message
//     holding the tool_result. --continue and --resume resend the earlier
//     conversation.
//   - The system prompt is an array of text blocks; Claude Code also puts
//     messages with role "system" into the conversation (the environment
//     description, and SessionStart hook context as "SessionStart hook
//     additional context: …"), so the last message need not be the user's.
//   - "/compact" sends one compaction request (above) and no main-loop
//     request; the CLI keeps the text inside <summary> and carries it into
//     the next request as "Summary:\n…".
//   - A subagent (the Agent tool) sends its own requests with its own tool
//     list; they count as main-loop requests and, since an agent may run in
//     the background, may interleave with the parent's.
//   - On 429, 500 and 529 the CLI retries by itself, honouring retry-after
//     (CLAUDE_CODE_MAX_RETRIES=0 turns that off: it then exits 1 printing
//     "API Error: 529 Overloaded…").
package modelserver
