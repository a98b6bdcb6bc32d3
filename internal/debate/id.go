package debate

import (
	"crypto/rand"
	"regexp"
	"sync"
	"time"
)

// IDPrefix starts every debate id.
const IDPrefix = "cc-debate-"

// idPattern is the only shape an id may have: it is used in file names and
// tmux session names, so it holds no path or tmux target characters.
// Compiled on first use: the hook program links this package, and starts
// for every tool call.
var idPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^cc-debate-[0-9]{8}-[0-9]{6}-[0-9a-z]{4}$`)
})

// NewID returns a fresh id for a debate started at now:
// cc-debate-YYYYMMDD-HHMMSS-xxxx, xxxx four random characters.
func NewID(now time.Time) string {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 4)
	rand.Read(b) // never fails
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return IDPrefix + now.Format("20060102-150405") + "-" + string(b)
}

// ValidID reports an id that is not of the form cc-debate-YYYYMMDD-HHMMSS-xxxx,
// before it can name a file.
func ValidID(id string) error {
	if !idPattern().MatchString(id) {
		return newError(msgBadID, nil, id)
	}
	return nil
}
