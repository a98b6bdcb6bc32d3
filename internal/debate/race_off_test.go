//go:build !race

package debate_test

const raceEnabled = false
