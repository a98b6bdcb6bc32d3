package decision

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/atomicfile"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/state"
)

// MemoryIndex is the agent memory folder's index file, loaded into every new
// session's context.
const MemoryIndex = "MEMORY.md"

// MemoryFileName is the memory file of a decision.
func MemoryFileName(slug string) string { return "reference_" + slug + ".md" }

// Description is a decision's one-line description: its What with white space
// collapsed.
func Description(c Candidate) string {
	return strings.Join(strings.Fields(c.What), " ")
}

// RenderMemory is a decision's memory file, laid out as the original tool
// writes it: frontmatter, a "# <slug>" heading, then the four fields, the
// alternatives on the line after their label.
func RenderMemory(c Candidate) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s\ntype: reference\n---\n\n# %s\n\n", c.Slug, yamlScalar(Description(c)), c.Slug)
	fmt.Fprintf(&b, "**What:** %s\n\n**Why:** %s\n\n**Alternatives considered:**\n%s\n\n**Consequences:** %s\n", c.What, c.Why, c.Alternatives, c.Consequences)
	return b.String()
}

// yamlScalar quotes s when a plain YAML scalar would misread it.
func yamlScalar(s string) string {
	if s == "" || strings.ContainsAny(s, ":#'\"{}[]&*!|>%@`") || strings.TrimSpace(s) != s {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return s
}

// IndexLine is a decision's line in MEMORY.md.
func IndexLine(c Candidate) string {
	return fmt.Sprintf("- [%s](%s) — %s", c.Slug, MemoryFileName(c.Slug), Description(c))
}

// EscalateResult lists the decisions whose memory file and index line were
// both written, and what went wrong with the others.
type EscalateResult struct {
	Written  []string `json:"written"`
	Warnings []string `json:"warnings,omitempty"`
}

// Escalate writes the cross-issue decisions to the memory folder dir: a file
// per decision and a line in MEMORY.md for each file not already named
// there. Updates of MEMORY.md are locked with a file in lockDir, so the
// memory folder holds nothing but memory files. It is best effort: a failure
// is a warning and the next decision is tried. Decisions of any other
// final_scope are ignored, as the original tool ignores them.
func Escalate(dir, lockDir string, decisions []UserDecision) EscalateResult {
	res := EscalateResult{Written: []string{}}
	for _, d := range decisions {
		if d.FinalScope != ScopeCrossIssue {
			continue
		}
		c := d.Candidate
		if !ValidSlug(c.Slug) {
			// The slug names a file: never one outside dir.
			res.Warnings = append(res.Warnings, fmt.Sprintf("memory write failed for slug %s: the slug is not kebab-case", c.Slug))
			continue
		}
		c = redactCandidate(c)
		if err := atomicfile.Write(filepath.Join(dir, MemoryFileName(c.Slug)), []byte(RenderMemory(c)), 0o644); err != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("memory write failed for slug %s: %v", c.Slug, err))
			continue
		}
		if err := addIndexLine(filepath.Join(dir, MemoryIndex), lockDir, c); err != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("memory index update failed for slug %s: %v", c.Slug, err))
			continue
		}
		res.Written = append(res.Written, c.Slug)
	}
	return res
}

// memoryLock is the lock file in lockDir guarding the memory index at path.
func memoryLock(lockDir, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(lockDir, "memory-"+hex.EncodeToString(sum[:8])+".lock")
}

func addIndexLine(path, lockDir string, c Candidate) error {
	return atomicfile.UpdateLocked(path, memoryLock(lockDir, path), 0o644, func(old []byte) ([]byte, error) {
		if bytes.Contains(old, []byte(MemoryFileName(c.Slug))) {
			return nil, atomicfile.ErrUnchanged
		}
		out := append([]byte{}, old...)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		return append(out, IndexLine(c)+"\n"...), nil
	})
}

func redactCandidate(c Candidate) Candidate {
	for _, p := range []*string{&c.What, &c.Why, &c.Alternatives, &c.Consequences} {
		*p = redact.Redact(*p)
	}
	return c
}

// LogApproved appends approved decisions to the approved-decision log
// (context/decisions.jsonl), append-only; replaying a capture does not log a
// decision twice.
func LogApproved(dir state.Dir, session string, issue int, decisions []UserDecision, now time.Time) error {
	if len(decisions) == 0 {
		return nil
	}
	if err := mkdirAll(dir.Root); err != nil {
		return fmt.Errorf("log approved decisions: %w", err)
	}
	files, err := recall.FilesFor(dir, "")
	if err != nil {
		return err
	}
	var ds []recall.Decision
	for _, d := range decisions {
		ds = append(ds, recall.Decision{
			Date:    now.Format(recall.DateLayout),
			TS:      now.UTC(),
			Slug:    d.Candidate.Slug,
			Summary: Description(d.Candidate),
			Source:  "issue",
			Issue:   issue,
			Session: session,
			Scope:   d.FinalScope,
		})
	}
	if _, err := recall.AppendDecisions(files, ds...); err != nil {
		return fmt.Errorf("log approved decisions: %w", err)
	}
	return nil
}
