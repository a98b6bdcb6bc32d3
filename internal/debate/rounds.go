package debate

import (
	"strconv"
	"strings"
)

// ConcludedMark in a side's last round ends the debate by agreement.
const ConcludedMark = "[CONCLUDED]"

// Rounds is what a side file holds: its "## Round N" sections in order.
type Rounds struct {
	// Numbers are the round numbers of the headings, in file order.
	Numbers []int
	// Last is the text of the last round section, heading excluded.
	Last string
}

// ParseRounds finds the "## Round N" headings of a side file. A heading must
// start a line; headings inside fenced code blocks do not count.
func ParseRounds(text string) Rounds {
	var r Rounds
	fence := ""
	lastStart := -1
	pos := 0
	for pos < len(text) {
		end := strings.IndexByte(text[pos:], '\n')
		next := len(text)
		if end >= 0 {
			next = pos + end + 1
		}
		line := strings.TrimRight(text[pos:next], "\r\n")
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) && strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1])) == "" {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
		default:
			if n, ok := roundHeading(line); ok {
				r.Numbers = append(r.Numbers, n)
				lastStart = next
			}
		}
		pos = next
	}
	if lastStart >= 0 {
		r.Last = text[lastStart:]
	}
	return r
}

// roundHeading parses "## Round N" (any spacing, any case of "round").
func roundHeading(line string) (int, bool) {
	rest, ok := strings.CutPrefix(line, "##")
	if !ok || strings.HasPrefix(rest, "#") {
		return 0, false
	}
	f := strings.Fields(rest)
	if len(f) != 2 || !strings.EqualFold(f[0], "round") {
		return 0, false
	}
	n, err := strconv.Atoi(f[1])
	if err != nil || n < 1 || f[1][0] == '+' {
		return 0, false
	}
	return n, true
}

// Has reports whether the side wrote round n.
func (r Rounds) Has(n int) bool {
	for _, m := range r.Numbers {
		if m == n {
			return true
		}
	}
	return false
}

// Concluded reports whether the last round holds ConcludedMark.
func (r Rounds) Concluded() bool { return strings.Contains(r.Last, ConcludedMark) }

// Written is the highest round number written, 0 for none.
func (r Rounds) Written() int {
	high := 0
	for _, n := range r.Numbers {
		high = max(high, n)
	}
	return high
}

// Twice lists the round numbers that have more than one heading, in order.
func (r Rounds) Twice() []int {
	seen := map[int]int{}
	var out []int
	for _, n := range r.Numbers {
		if seen[n]++; seen[n] == 2 {
			out = append(out, n)
		}
	}
	return out
}
