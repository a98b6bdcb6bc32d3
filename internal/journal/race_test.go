//go:build race

package journal

// raceEnabled is true when the tests run with the race detector, which makes
// the writer processes of the multi-process tests several times slower.
const raceEnabled = true
