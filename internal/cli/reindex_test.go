package cli

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"
)

// The first catch-up's bar and its line appear only when there is much to
// read, the line once.
func TestProgressBarLeast(t *testing.T) {
	var out bytes.Buffer
	small := &progressBar{w: &out, title: "building", least: 100}
	small.update(0, 99)
	small.update(99, 99)
	small.finish()
	if out.Len() != 0 {
		t.Errorf("below the least: %q; want nothing", out.String())
	}
	big := &progressBar{w: &out, title: "building", least: 100}
	for _, done := range []int64{0, 50, 50, 200} {
		big.update(done, 200)
	}
	big.finish()
	got := out.String()
	if !strings.HasPrefix(got, "building\n\r[") || strings.Count(got, "building") != 1 || strings.Count(got, "\r") != 3 || !strings.HasSuffix(got, "100% 0.0 MiB / 0.0 MiB\n") {
		t.Errorf("got %q; want the line once, then the bar at 0, 25 and 100%%", got)
	}
}

// Loads side by side share the heap limit: it holds until the last ends,
// then the limit from before is back.
func TestLimitMemoryNested(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	first := limitMemory(reindexMemoryLimit)
	second := limitMemory(reindexMemoryLimit)
	first()
	if got := debug.SetMemoryLimit(-1); got != reindexMemoryLimit {
		t.Errorf("limit with one load left = %d; want %d", got, reindexMemoryLimit)
	}
	second()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit after both = %d; want %d, as before", got, before)
	}
}
