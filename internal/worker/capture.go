package worker

import (
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// capture keeps the first and the last bytes written to it and counts the
// rest, so an agent that prints gigabytes costs a bounded amount of memory
// while the start (what it set out to do) and the end (how it finished) of
// its output survive. It is safe for concurrent use.
type capture struct {
	mu      sync.Mutex
	head    []byte
	tail    []byte // ring buffer once full
	tailAt  int    // next write position in tail when full
	full    bool   // tail has wrapped at least once
	headMax int
	tailMax int
	total   int64
}

func newCapture(headMax, tailMax int) *capture {
	return &capture{headMax: headMax, tailMax: tailMax}
}

// Write keeps p's bytes in the head until it is full, then in the tail ring.
func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	if room := c.headMax - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if c.tailMax == 0 || len(p) == 0 {
		return n, nil
	}
	if len(p) >= c.tailMax {
		c.tail = append(c.tail[:0], p[len(p)-c.tailMax:]...)
		c.tailAt, c.full = 0, true
		return n, nil
	}
	if !c.full {
		if room := c.tailMax - len(c.tail); len(p) <= room {
			c.tail = append(c.tail, p...)
			return n, nil
		}
		room := c.tailMax - len(c.tail)
		c.tail = append(c.tail, p[:room]...)
		p = p[room:]
		c.full, c.tailAt = true, 0
	}
	for len(p) > 0 {
		k := copy(c.tail[c.tailAt:], p)
		p = p[k:]
		c.tailAt = (c.tailAt + k) % c.tailMax
	}
	return n, nil
}

// captured is what was kept: the whole output when it fitted, else the head,
// a line saying how much was left out, and the tail.
type captured struct {
	Text      string
	Total     int64
	Truncated bool
}

// Output returns what was kept so far.
func (c *capture) Output() captured {
	c.mu.Lock()
	defer c.mu.Unlock()
	tail := c.tailBytes()
	kept := int64(len(c.head) + len(tail))
	if kept == c.total {
		return captured{Text: strings.ToValidUTF8(string(c.head)+string(tail), "\uFFFD"), Total: c.total}
	}
	var b strings.Builder
	b.WriteString(strings.ToValidUTF8(string(trimPartialRune(c.head, false)), "\uFFFD"))
	b.WriteString("\n[… " + strconv.FormatInt(c.total-kept, 10) + " bytes …]\n")
	b.WriteString(strings.ToValidUTF8(string(trimPartialRune(tail, true)), "\uFFFD"))
	return captured{Text: b.String(), Total: c.total, Truncated: true}
}

// tailBytes returns the tail in order.
func (c *capture) tailBytes() []byte {
	if !c.full {
		return c.tail
	}
	out := make([]byte, 0, c.tailMax)
	out = append(out, c.tail[c.tailAt:]...)
	return append(out, c.tail[:c.tailAt]...)
}

// trimPartialRune drops a rune cut in two at the start (fromStart) or the end
// of b.
func trimPartialRune(b []byte, fromStart bool) []byte {
	if fromStart {
		for i := 0; i < len(b) && i < utf8.UTFMax; i++ {
			if utf8.RuneStart(b[i]) {
				return b[i:]
			}
		}
		return b
	}
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.Valid(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}
