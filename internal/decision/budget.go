package decision

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/baton-cli/baton/internal/atomicfile"
)

// BudgetFile is the state folder's count of the tokens model extractors used
// today.
const BudgetFile = "decisions-tokens.json"

// Budget is a per-day token budget kept in a small file, so separate runs on
// the same day share it. A Limit of 0 or less means no model use at all.
type Budget struct {
	Path  string
	Limit int64
	Now   func() time.Time
}

type budgetDay struct {
	Date   string `json:"date"`
	Tokens int64  `json:"tokens"`
}

func (b Budget) today() string { return b.Now().UTC().Format(time.DateOnly) }

// Used returns the tokens counted today.
func (b Budget) Used() (int64, error) {
	var used int64
	err := atomicfile.Update(b.Path, 0o600, func(old []byte) ([]byte, error) {
		var d budgetDay
		if json.Unmarshal(old, &d) == nil && d.Date == b.today() {
			used = d.Tokens
		}
		return nil, atomicfile.ErrUnchanged
	})
	return used, err
}

// Spent reports whether today's tokens have reached the limit.
func (b Budget) Spent() (bool, error) {
	used, err := b.Used()
	return used >= b.Limit, err
}

// Add counts n more tokens for today.
func (b Budget) Add(n int64) error {
	if n <= 0 {
		return nil
	}
	err := atomicfile.Update(b.Path, 0o600, func(old []byte) ([]byte, error) {
		var d budgetDay
		if json.Unmarshal(old, &d) != nil || d.Date != b.today() {
			d = budgetDay{Date: b.today()}
		}
		d.Tokens += n
		return json.Marshal(d)
	})
	if err != nil {
		return fmt.Errorf("count tokens: %w", err)
	}
	return nil
}

// BudgetPath is the budget file in the state folder root.
func BudgetPath(stateRoot string) string { return filepath.Join(stateRoot, BudgetFile) }
