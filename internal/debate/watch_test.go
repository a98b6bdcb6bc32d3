package debate

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// next waits for the watcher's next delivery, failing after a deadline.
func next(t testing.TB, ch chan []Message) []Message {
	t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no delivery within 10s")
		return nil
	}
}

func TestWatchRunsWholeDebate(t *testing.T) {
	f := newFixture(t, 3)
	f.tr.delivered = make(chan []Message, 10)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var kinds []Kind
	done := make(chan error, 1)
	go func() {
		done <- f.d.Watch(ctx, f.s.ID, f.tr, func(r Result) { kinds = append(kinds, r.Kind) })
	}()

	for round := 1; round <= 3; round++ {
		f.write(t, Pro, round, "p")
		f.write(t, Con, round, "c")
		msgs := next(t, f.tr.delivered)
		if round < 3 {
			if len(msgs) != 2 || msgs[0].Role != Pro || msgs[1].Role != Con {
				t.Fatalf("round %d: delivered %+v; want both sides", round, msgs)
			}
			continue
		}
		if len(msgs) != 1 || msgs[0].Role != Moderator {
			t.Fatalf("last round: delivered %+v; want the summary request", msgs)
		}
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Watch = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Watch did not return after the debate ended")
	}
	if s := f.load(t); s.Status != Timeout || s.CurrentRound != 3 {
		t.Errorf("after watch: %s round %d; want timeout 3", s.Status, s.CurrentRound)
	}
	if got := len(f.tr.messages()); got != 5 {
		t.Errorf("sent %d messages; want 5 (each once)", got)
	}
	if kinds[len(kinds)-1] != Ended || !slices.Contains(kinds, HandedOff) {
		t.Errorf("reported %v; want hand-offs and a final ended", kinds)
	}
}

func TestWatchStopsWhenAborted(t *testing.T) {
	f := newFixture(t, 3)
	done := make(chan error, 1)
	go func() { done <- f.d.Watch(t.Context(), f.s.ID, f.tr, func(Result) {}) }()
	if _, err := f.d.Stop(t.Context(), f.s.ID, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Watch = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Watch did not notice the debate was stopped")
	}
}

// BenchmarkWatchHandoff measures how long after the second side's write the
// watcher has decided the hand-off and handed the messages to the
// transport. It reports the median and the 95th percentile.
func BenchmarkWatchHandoff(b *testing.B) {
	f := newFixture(b, b.N+1)
	f.tr.delivered = make(chan []Message, 1)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		f.d.Watch(ctx, f.s.ID, f.tr, func(Result) {})
	}()
	defer func() { cancel(); <-stopped }()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		f.write(b, Pro, i+1, "p")
		start := time.Now()
		f.write(b, Con, i+1, "c")
		msgs := next(b, f.tr.delivered)
		lat = append(lat, time.Since(start))
		if len(msgs) != 2 {
			b.Fatalf("delivered %d messages", len(msgs))
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "ms-p95")
	if testing.Verbose() {
		fmt.Printf("hand-off latency over %d rounds: median %v, p95 %v, max %v\n", len(lat), lat[len(lat)/2], lat[len(lat)*95/100], lat[len(lat)-1])
	}
}
