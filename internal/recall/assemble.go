package recall

import (
	"slices"
	"strings"

	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/quote"
)

// An Item is one whole entry offered to a push: a decision line, an L1 or
// an L2 entry. It is kept whole or left out, never cut.
type Item struct {
	Layer Layer
	Text  string
	// Priority orders the items by importance: lower is kept first, ties
	// in the order given. Items are shown by layer (L3, L1, L2), each
	// layer's in the order given, whatever their priority.
	Priority int
}

// LNow is the block of a briefing's own entries, shown between the
// approved decisions and the summaries: where the worktree left off.
const LNow Layer = "now"

// LTeam is the block of the memory teammates shared through the
// repository's remote (package teammem): their approved decisions and the
// state they left this branch in, shown after the approved decisions.
const LTeam Layer = "team"

// Layout is the fixed text around the items.
type Layout struct {
	// Head comes first (the restart case); it is always kept.
	Head string
	// Tail comes last (how to pull more); it is always kept.
	Tail string
	// Headings head each layer's block when it keeps an item.
	Headings map[Layer]string
	// Note says what was left out, given the count per layer.
	Note func(left map[Layer]int) string
	// Left counts entries left out before assembly (too old to fit); they
	// are in the note and in Assembly.Left.
	Left map[Layer]int
	// Lang is the language of the lines that fence each layer's items as
	// quoted data (package quote): every item holds text baton did not
	// write (decisions, summaries, commands, error output, a state file),
	// so a heading or an instruction planted in one stays inside its
	// layer's block.
	Lang i18n.Lang
}

// Assembly is what a push kept.
type Assembly struct {
	Text       string
	Kept, Left map[Layer]int
}

// layerOrder is the order of both priority and display.
var layerOrder = [...]Layer{L3, LTeam, LNow, L1, L2}

// Assemble lays out items within budget characters (UTF-16 units, as the
// agent counts them): the head, then a block per layer (L3, L1, L2) of its
// kept items under its heading, fenced as one quoted block, then, when
// something was left out, the note.
//
// When everything does not fit, items are taken by Priority and each is
// kept if it fits beside those already kept, so an item is left out only
// when it does not fit with all the higher-priority items kept. Room for the note is set aside
// first. If not even the head and the note fit, the result is what of them
// fits, or "".
func Assemble(items []Item, lay Layout, budget int) Assembly {
	// An item's own trailing line breaks would be dropped at the end of
	// its layer's block and kept elsewhere: drop them everywhere, so that
	// an item costs the same wherever it lands.
	items = slices.Clone(items)
	for i := range items {
		items[i].Text = strings.TrimRight(items[i].Text, "\r\n")
	}
	a := Assembly{Kept: map[Layer]int{}, Left: map[Layer]int{}}
	pre := 0
	for l, n := range lay.Left {
		a.Left[l] += n
		pre += n
	}
	keep := make([]bool, len(items))
	for i := range keep {
		keep[i] = true
	}
	if pre == 0 {
		if full := render(items, keep, lay, nil); hook.Len(full) <= budget {
			for _, it := range items {
				a.Kept[it.Layer]++
			}
			a.Text = full
			return a
		}
	}

	// Set aside room for the longest note this push could need: the one
	// counting every item as left out.
	all := map[Layer]int{}
	for l, n := range lay.Left {
		all[l] += n
	}
	for _, it := range items {
		all[it.Layer]++
	}
	room := budget - hook.Len(lay.Note(all)) - 2
	if lay.Tail != "" {
		// The tail goes before the head and the note do.
		if room-hook.Len(lay.Head)-hook.Len(lay.Tail)-2 < 0 {
			lay.Tail = ""
		} else {
			room -= hook.Len(lay.Tail) + 2
		}
	}
	used, blocks := hook.Len(lay.Head), 0
	if lay.Head != "" {
		blocks = 1
	}
	for i := range keep {
		keep[i] = false
	}
	started := map[Layer]bool{}
	for _, i := range byPriority(items) {
		layer := items[i].Layer
		cost := 1 + hook.Len(items[i].Text)
		if !started[layer] {
			cost += hook.Len(lay.Headings[layer]) + quote.Overhead(lay.Lang)
			if blocks > 0 {
				cost += 2 // the blank line between blocks
			}
		}
		if used+cost > room {
			continue
		}
		if !started[layer] {
			started[layer] = true
			blocks++
		}
		keep[i] = true
		used += cost
	}
	for i, it := range items {
		if keep[i] {
			a.Kept[it.Layer]++
		} else {
			a.Left[it.Layer]++
		}
	}

	a.Text = render(items, keep, lay, a.Left)
	if hook.Len(a.Text) > budget {
		// Only a head or a note longer than the budget gets here.
		a.Kept, a.Left = map[Layer]int{}, all
		a.Text = ""
		if note := lay.Note(all); hook.Len(note) <= budget {
			a.Text = note
		}
	}
	return a
}

// byPriority returns the items' indexes, lowest Priority first, ties in
// the order given.
func byPriority(items []Item) []int {
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return items[a].Priority - items[b].Priority })
	return idx
}

// render writes the kept items; left, when it counts anything, adds the
// note.
func render(items []Item, keep []bool, lay Layout, left map[Layer]int) string {
	var blocks []string
	if lay.Head != "" {
		blocks = append(blocks, lay.Head)
	}
	for _, layer := range layerOrder {
		var texts []string
		for i, it := range items {
			if it.Layer == layer && keep[i] {
				texts = append(texts, it.Text)
			}
		}
		if len(texts) > 0 {
			blocks = append(blocks, lay.Headings[layer]+"\n"+quote.Lines(lay.Lang, texts))
		}
	}
	for _, n := range left {
		if n > 0 {
			blocks = append(blocks, lay.Note(left))
			break
		}
	}
	if lay.Tail != "" {
		blocks = append(blocks, lay.Tail)
	}
	return strings.Join(blocks, "\n\n")
}
