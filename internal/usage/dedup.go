package usage

import (
	"fmt"
	"hash/maphash"
)

// Responses are told apart by 64-bit hashes of their ids: two different
// message ids share a hash once in about 10^19 pairs, and even then are only
// merged when their request ids (or sessions and times) collide too.

// hasher hashes ids; its seed is fixed for one Scan and safe to share.
type hasher struct{ seed maphash.Seed }

func newHasher() hasher { return hasher{maphash.MakeSeed()} }

func (h hasher) sum(b []byte) uint64 { return maphash.Bytes(h.seed, b) }

// resp is one response as a reader hands it to the table.
type resp struct {
	msg, req   uint64 // hashes of the message and request ids
	hasMsg     bool
	hasReq     bool
	side, fast bool
	ts         int64 // Unix milliseconds
	session    string
	model      string
	tokens     Tokens
}

// makeResps appends a parsed line's responses to out: the line's own and
// its advisor records. intern turns the session and model into strings
// shared between responses.
func (h hasher) makeResps(l *line, fileSession string, intern func([]byte) string, out []resp) []resp {
	session := fileSession
	if l.hasSess {
		session = intern(l.session)
	}
	r := resp{hasMsg: l.hasMsg, hasReq: l.hasReq, side: l.side, fast: l.fast, ts: l.ts.UnixMilli(),
		session: session, model: intern(l.model), tokens: l.tokens}
	if l.hasMsg {
		r.msg = h.sum(l.msgID)
	}
	if l.hasReq {
		r.req = h.sum(l.reqID)
	}
	out = append(out, r)
	for i, a := range l.advisors {
		ar := r
		ar.fast, ar.model, ar.tokens = false, intern(a.model), a.tokens
		if l.hasMsg {
			ar.msg = h.sum(fmt.Appendf(nil, "%s:advisor:%d", l.msgID, i))
		}
		out = append(out, ar)
	}
	return out
}

// entry is a response kept, in as little memory as it takes: the counts in
// 32 bits each (a larger one, never seen in practice, is kept aside).
type entry struct {
	in, out, create, read uint32
	ts                    int64
	req                   uint64
	session               uint32
	// next is the next entry with the same message id, or -1.
	next int32
	// create1h is how many of create were written for an hour.
	create1h uint32
	model    uint16
	flags    uint8
}

const (
	flagSide = 1 << iota
	flagFast
	flagReq
	flagBig // the counts are in table.big
)

// table keeps one entry per response.
type table struct {
	kept pages
	// byMsg leads from a message id to its first entry.
	byMsg map[uint64]int32
	// big holds the counts that do not fit in 32 bits.
	big map[int32]Tokens

	sessions  []string
	sessionID map[string]uint32
	models    []string
	modelID   map[string]uint32
}

func newTable() *table {
	return &table{
		byMsg:     map[uint64]int32{},
		big:       map[int32]Tokens{},
		sessionID: map[string]uint32{},
		modelID:   map[string]uint32{},
	}
}

func intern(s string, list *[]string, ids map[string]uint32) uint32 {
	if id, ok := ids[s]; ok {
		return id
	}
	id := uint32(len(*list))
	*list = append(*list, s)
	ids[s] = id
	return id
}

// set stores r in the entry at idx, keeping its place in its list.
func (t *table) set(idx int32, r *resp) {
	e := t.kept.at(idx)
	next := e.next
	*e = entry{ts: r.ts, req: r.req, next: next,
		session: intern(r.session, &t.sessions, t.sessionID),
		model:   uint16(min(intern(r.model, &t.models, t.modelID), 1<<16-1)),
	}
	if r.side {
		e.flags |= flagSide
	}
	if r.fast {
		e.flags |= flagFast
	}
	if r.hasReq {
		e.flags |= flagReq
	}
	tk := r.tokens
	delete(t.big, idx)
	if fits(tk.Input) && fits(tk.Output) && fits(tk.CacheCreation) && fits(tk.CacheCreation1h) && fits(tk.CacheRead) {
		e.in, e.out, e.create, e.read = uint32(tk.Input), uint32(tk.Output), uint32(tk.CacheCreation), uint32(tk.CacheRead)
		e.create1h = uint32(tk.CacheCreation1h)
		return
	}
	e.flags |= flagBig
	t.big[idx] = tk
}

func fits(n int64) bool { return n >= 0 && n <= 1<<32-1 }

// tokens returns the counts of the entry at idx.
func (t *table) tokens(idx int32) Tokens {
	e := t.kept.at(idx)
	if e.flags&flagBig != 0 {
		return t.big[idx]
	}
	return Tokens{Input: int64(e.in), Output: int64(e.out), CacheCreation: int64(e.create),
		CacheCreation1h: int64(e.create1h), CacheRead: int64(e.read)}
}

// push adds one response in reading order.
func (t *table) push(r *resp) {
	if !r.hasMsg {
		t.set(t.kept.add(), r)
		return
	}
	head, ok := t.byMsg[r.msg]
	if !ok {
		head = -1
	}
	idx, found := t.match(head, r)
	if found {
		if t.better(r, idx) {
			t.set(idx, r)
		}
		return
	}
	idx = t.kept.add()
	t.set(idx, r)
	t.kept.at(idx).next = head
	t.byMsg[r.msg] = idx
}

// match finds the entry r duplicates among those of its message id: the same
// request, or with no request id the same session and time; failing that, a
// response of the same session of which r is a sidechain replay, or which is
// a sidechain replay of r.
func (t *table) match(head int32, r *resp) (int32, bool) {
	session, known := t.sessionID[r.session]
	for i := head; i >= 0; i = t.kept.at(i).next {
		e := t.kept.at(i)
		hasReq := e.flags&flagReq != 0
		if r.hasReq && hasReq && e.req == r.req {
			return i, true
		}
		if !r.hasReq && !hasReq && known && e.session == session && e.ts == r.ts {
			return i, true
		}
	}
	if !known {
		return 0, false
	}
	for i := head; i >= 0; i = t.kept.at(i).next {
		e := t.kept.at(i)
		if e.session == session && (r.side || e.flags&flagSide != 0) {
			return i, true
		}
	}
	return 0, false
}

// better reports whether r should be counted instead of the entry at idx: a
// main-chain line beats a sidechain copy, then more tokens win.
func (t *table) better(r *resp, idx int32) bool {
	e := t.kept.at(idx)
	eSide := e.flags&flagSide != 0
	if r.side != eSide {
		return eSide
	}
	if rt, et := r.tokens.Total(), t.tokens(idx).Total(); rt != et {
		return rt > et
	}
	return r.fast && e.flags&flagFast == 0
}

// pages hold the entries in fixed-size pages, so that growing never copies
// (and never holds twice) what is already kept.
type pages struct {
	p [][]entry
	n int32
}

const pageSize = 4096

// add makes room for one more entry and returns its index.
func (ps *pages) add() int32 {
	if int(ps.n)%pageSize == 0 {
		ps.p = append(ps.p, make([]entry, 0, pageSize))
	}
	last := len(ps.p) - 1
	ps.p[last] = append(ps.p[last], entry{next: -1})
	ps.n++
	return ps.n - 1
}

func (ps *pages) at(i int32) *entry { return &ps.p[i/pageSize][i%pageSize] }

func (ps *pages) len() int32 { return ps.n }
