//go:build !race

package journal

// raceEnabled is true when the tests run with the race detector.
const raceEnabled = false
