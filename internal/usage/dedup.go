package usage

import (
	"fmt"
	"hash/maphash"
	"strconv"
)

// key identifies a response by a 128-bit hash of its ids: a collision between
// two of a few million responses is far less likely than a disk error.
type key [2]uint64

// hasher makes keys; its seeds are fixed for one Scan and safe to share.
type hasher struct{ a, b maphash.Seed }

func newHasher() hasher { return hasher{maphash.MakeSeed(), maphash.MakeSeed()} }

func (h hasher) key(parts ...[]byte) key {
	var x, y maphash.Hash
	x.SetSeed(h.a)
	y.SetSeed(h.b)
	for _, p := range parts {
		x.Write(p)
		x.WriteByte(0)
		y.Write(p)
		y.WriteByte(0)
	}
	return key{x.Sum64(), y.Sum64()}
}

// resp is one response as a reader hands it to the table.
type resp struct {
	// exact is the response's identity: message and request id, or
	// message id, session and time when there is no request id. route is
	// message id and session, to find sidechain replays.
	exact, route key
	hasMsg       bool
	side, fast   bool
	ts           int64 // Unix milliseconds
	session      string
	model        string
	tokens       Tokens
}

// makeResps appends a parsed line's responses to out: the line's own and
// its advisor records. intern turns the session and model into strings
// shared between responses.
func (h hasher) makeResps(l *line, fileSession string, intern func([]byte) string, out []resp) []resp {
	session := fileSession
	if l.hasSess {
		session = intern(l.session)
	}
	ms := l.ts.UnixMilli()
	r := resp{hasMsg: l.hasMsg, side: l.side, fast: l.fast, ts: ms, session: session, model: intern(l.model), tokens: l.tokens}
	r.exact, r.route = h.keys(l, l.msgID, session, ms)
	out = append(out, r)
	for i, a := range l.advisors {
		ar := resp{hasMsg: l.hasMsg, side: l.side, ts: ms, session: session, model: intern(a.model), tokens: a.tokens}
		if l.hasMsg {
			id := fmt.Appendf(nil, "%s:advisor:%d", l.msgID, i)
			ar.exact, ar.route = h.keys(l, id, session, ms)
		}
		out = append(out, ar)
	}
	return out
}

func (h hasher) keys(l *line, msg []byte, session string, ms int64) (exact, route key) {
	if !l.hasMsg {
		return key{}, key{}
	}
	var tsBuf [20]byte
	if l.hasReq {
		exact = h.key([]byte("r"), msg, l.reqID)
	} else {
		exact = h.key([]byte("t"), msg, []byte(session), strconv.AppendInt(tsBuf[:0], ms, 10))
	}
	return exact, h.key([]byte("s"), msg, []byte(session))
}

// entry is a response kept, in as little memory as it takes.
type entry struct {
	tokens  Tokens
	ts      int64
	session uint32
	model   uint32
	side    bool
	fast    bool
}

// node links the responses that share a route key.
type node struct{ idx, next int32 }

// table keeps one entry per response.
type table struct {
	kept  pages
	exact map[key]int32
	// route maps a route key to the first of its nodes.
	route map[key]int32
	nodes []node

	sessions  []string
	sessionID map[string]uint32
	models    []string
	modelID   map[string]uint32
}

func newTable() *table {
	return &table{
		exact:     map[key]int32{},
		route:     map[key]int32{},
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

func (t *table) entryOf(r *resp) entry {
	return entry{
		tokens:  r.tokens,
		ts:      r.ts,
		session: intern(r.session, &t.sessions, t.sessionID),
		model:   intern(r.model, &t.models, t.modelID),
		side:    r.side,
		fast:    r.fast,
	}
}

// push adds one response in reading order.
func (t *table) push(r *resp) {
	if !r.hasMsg {
		t.kept.add(t.entryOf(r))
		return
	}
	idx, found := t.exact[r.exact]
	if !found {
		idx, found = t.replayOf(r)
	}
	if found {
		if e := t.kept.at(idx); t.better(r, e) {
			*e = t.entryOf(r)
			t.index(r, idx)
		}
		return
	}
	idx = t.kept.add(t.entryOf(r))
	t.index(r, idx)
}

// replayOf finds a response of the same message and session of which r is
// a sidechain replay, or which is a sidechain replay of r.
func (t *table) replayOf(r *resp) (int32, bool) {
	n, ok := t.route[r.route]
	for ok {
		nd := t.nodes[n]
		if r.side || t.kept.at(nd.idx).side {
			return nd.idx, true
		}
		n, ok = nd.next, nd.next >= 0
	}
	return 0, false
}

// better reports whether r should be counted instead of e: a main-chain line
// beats a sidechain copy, then more tokens win.
func (t *table) better(r *resp, e *entry) bool {
	if r.side != e.side {
		return e.side
	}
	if rt, et := r.tokens.Total(), e.tokens.Total(); rt != et {
		return rt > et
	}
	return r.fast && !e.fast
}

// index makes r's keys lead to idx.
func (t *table) index(r *resp, idx int32) {
	if _, ok := t.exact[r.exact]; !ok {
		t.exact[r.exact] = idx
	}
	head, ok := t.route[r.route]
	if !ok {
		t.route[r.route] = t.addNode(idx)
		return
	}
	for n := head; ; {
		if t.nodes[n].idx == idx {
			return
		}
		if t.nodes[n].next < 0 {
			t.nodes[n].next = t.addNode(idx)
			return
		}
		n = t.nodes[n].next
	}
}

func (t *table) addNode(idx int32) int32 {
	t.nodes = append(t.nodes, node{idx: idx, next: -1})
	return int32(len(t.nodes) - 1)
}

// pages hold the entries in fixed-size pages, so that growing never copies
// (and never holds twice) what is already kept.
type pages struct {
	p [][]entry
	n int32
}

const pageSize = 4096

func (ps *pages) add(e entry) int32 {
	if int(ps.n)%pageSize == 0 {
		ps.p = append(ps.p, make([]entry, 0, pageSize))
	}
	last := len(ps.p) - 1
	ps.p[last] = append(ps.p[last], e)
	ps.n++
	return ps.n - 1
}

func (ps *pages) at(i int32) *entry { return &ps.p[i/pageSize][i%pageSize] }

func (ps *pages) len() int32 { return ps.n }
