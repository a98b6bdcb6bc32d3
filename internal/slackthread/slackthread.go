// Package slackthread is a Slack thread as baton reads it: the first
// message and the newest replies. It holds only the types, so that a
// package showing threads (recall, which the hook links) need not link the
// Slack client that reads them (slackapi).
package slackthread

// A Message is one message of a thread.
type Message struct {
	TS       string `json:"ts"`
	ThreadTS string `json:"thread_ts,omitempty"`
	User     string `json:"user,omitempty"`
	BotID    string `json:"bot_id,omitempty"`
	Username string `json:"username,omitempty"`
	Text     string `json:"text"`
}

// Thread is what was read of a thread.
type Thread struct {
	Channel, TS string
	// Messages are the thread's first message, then its newest replies
	// (at most the depth asked, the first message included), oldest first.
	Messages []Message
	// Total counts every message read; Omitted those left out between the
	// first message and the newest replies.
	Total, Omitted int
}
