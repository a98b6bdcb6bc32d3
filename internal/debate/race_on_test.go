//go:build race

package debate_test

// raceEnabled: the race detector slows the baton processes the end-to-end
// tests start several-fold.
const raceEnabled = true
