package statefile

import (
	"fmt"
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Merge combines mine, an edit of base, with theirs, a version of base saved
// while mine was being made. The parts are the frontmatter keys, the text
// before the first section, and the sections: a part changed on one side
// takes that side's version, a part changed the same way on both is kept,
// and a part changed differently on both sides (or changed on one and
// removed on the other) is a conflict, reported as a *ConflictError.
// Sections keep mine's order; sections only theirs added follow the section
// they follow in theirs. The result's updated is theirs' or mine's; callers
// set it.
func Merge(base, mine, theirs *File) (*File, error) {
	var conflicts []string
	front := mergeFront(base, mine, theirs, &conflicts)

	preamble, ok := pick(&base.Preamble, &mine.Preamble, &theirs.Preamble)
	if !ok {
		conflicts = append(conflicts, "preamble")
	}
	sections := mergeSections(base, mine, theirs, &conflicts)
	if len(conflicts) > 0 {
		return nil, &ConflictError{Parts: conflicts}
	}
	r := &File{front: front, Sections: sections}
	if preamble != nil {
		r.Preamble = *preamble
	}
	// Parsing the rendered result fills Task, Status and Updated and checks
	// that the merge of two valid files is itself valid.
	return Parse(r.render())
}

// pick is the three-way choice for one part; nil is an absent part. ok is
// false for a conflict.
func pick(b, m, t *string) (res *string, ok bool) {
	switch {
	case same(m, b):
		return t, true
	case same(t, b), same(m, t):
		return m, true
	}
	return nil, false
}

func same(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// part is one keyed part of a file, in order.
type part struct {
	key  string
	text string
}

func lookup(parts []part, key string) *string {
	for i := range parts {
		if parts[i].key == key {
			return &parts[i].text
		}
	}
	return nil
}

func mergeFront(base, mine, theirs *File, conflicts *[]string) *yaml.Node {
	bf, mf, tf := frontParts(base), frontParts(mine), frontParts(theirs)
	tnodes := frontNodes(theirs)
	mnodes := frontNodes(mine)
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if mine.front != nil {
		out.HeadComment, out.FootComment = mine.front.HeadComment, mine.front.FootComment
	}
	add := func(key string, from map[string][2]*yaml.Node) {
		kv := from[key]
		out.Content = append(out.Content, kv[0], kv[1])
	}
	for _, p := range mf {
		if p.key == keyUpdated {
			add(p.key, mnodes)
			continue
		}
		res, ok := pick(lookup(bf, p.key), &p.text, lookup(tf, p.key))
		switch {
		case !ok:
			*conflicts = append(*conflicts, p.key)
		case res == nil:
		case *res == p.text:
			add(p.key, mnodes)
		default:
			add(p.key, tnodes)
		}
	}
	for _, p := range tf {
		if p.key == keyUpdated || lookup(mf, p.key) != nil {
			continue
		}
		res, ok := pick(lookup(bf, p.key), nil, &p.text)
		switch {
		case !ok:
			*conflicts = append(*conflicts, p.key)
		case res != nil:
			add(p.key, tnodes)
		}
	}
	return out
}

// frontParts lists the frontmatter's keys with their values as YAML text.
func frontParts(f *File) []part {
	f.syncFront()
	var parts []part
	for i := 0; i+1 < len(f.front.Content); i += 2 {
		b, err := yaml.Marshal(f.front.Content[i+1])
		if err != nil {
			b = []byte(fmt.Sprint(f.front.Content[i+1].Value))
		}
		parts = append(parts, part{key: f.front.Content[i].Value, text: string(b)})
	}
	return parts
}

func frontNodes(f *File) map[string][2]*yaml.Node {
	nodes := map[string][2]*yaml.Node{}
	for i := 0; i+1 < len(f.front.Content); i += 2 {
		nodes[f.front.Content[i].Value] = [2]*yaml.Node{f.front.Content[i], f.front.Content[i+1]}
	}
	return nodes
}

// sectionParts keys each section by its kind, or its heading when it is not
// a known one; a repeated key gets its occurrence number.
func sectionParts(f *File) []part {
	var parts []part
	seen := map[string]int{}
	for _, s := range f.Sections {
		key := "## " + s.Heading
		if k := s.Kind(); k != Other {
			key = "kind " + strconv.Itoa(int(k))
		}
		if n := seen[key]; n > 0 {
			seen[key] = n + 1
			key += "#" + strconv.Itoa(n)
		} else {
			seen[key] = 1
		}
		parts = append(parts, part{key: key, text: s.Heading + "\n" + s.Body})
	}
	return parts
}

func mergeSections(base, mine, theirs *File, conflicts *[]string) []Section {
	bp, mp, tp := sectionParts(base), sectionParts(mine), sectionParts(theirs)
	var out []part
	for _, p := range mp {
		res, ok := pick(lookup(bp, p.key), &p.text, lookup(tp, p.key))
		switch {
		case !ok:
			*conflicts = append(*conflicts, headingOf(p.text))
		case res != nil:
			out = append(out, part{key: p.key, text: *res})
		}
	}
	for i, p := range tp {
		if lookup(mp, p.key) != nil {
			continue
		}
		res, ok := pick(lookup(bp, p.key), nil, &p.text)
		switch {
		case !ok:
			*conflicts = append(*conflicts, headingOf(p.text))
			continue
		case res == nil:
			continue
		}
		// Added by theirs only: place it after the section it follows there.
		at := len(out)
		if i > 0 {
			if j := slices.IndexFunc(out, func(q part) bool { return q.key == tp[i-1].key }); j >= 0 {
				at = j + 1
			}
		} else {
			at = 0
		}
		out = slices.Insert(out, at, p)
	}
	sections := make([]Section, len(out))
	for i, p := range out {
		h, body := cutLine(p.text)
		sections[i] = Section{Heading: h, Body: body}
	}
	return sections
}

func headingOf(text string) string {
	h, _ := cutLine(text)
	return "## " + h
}

func cutLine(s string) (first, rest string) {
	for i := range len(s) {
		if s[i] == '\n' {
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}
