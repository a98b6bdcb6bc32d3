package redact

import (
	"math"
	"strings"
)

// Long random-looking values of no known shape. A candidate is a run of
// [A-Za-z0-9+/_-] (with up to two '=' of padding) that
//
//   - is at least minEntropyLen bytes long,
//   - holds an upper-case letter, a lower-case letter and a digit, not
//     counting the T and Z of a compact timestamp (20261201T122934Z), which
//     branch and run names carry,
//   - has at most a quarter of its bytes in runs of four or more lower-case
//     letters, which identifiers and paths made of words have plenty of
//     (BenchmarkRedact/mixed-1MB-2, /home/User/Downloads/Report2024),
//   - has a Shannon entropy of at least 0.8·log2(length) bits per byte
//     (4.5 at most),
//   - and is not a checksum, a public key or an object id: not after
//     "h1:", "SHA256:", "base64," or an ssh key type, not starting with
//     "sha1-", "sha256-", "sha384-" or "sha512-", and not an id of a model
//     API or of Stripe (toolu_01…, msg_01…, chatcmpl-…, evt_…; see publicID).
//
// When a run with '/' in it fails, or is an absolute file path (see
// filePath), each part between the '/' is tried alone;
// when it passes, leading and trailing parts of a path made of lower-case
// letters only or digits only (api/webhooks/1187654321/…) are left out of
// the replacement.
const (
	kindHighEntropy = "high-entropy"
	minEntropyLen   = 24
	// The threshold stops growing with the length here, below what long
	// base64 reaches (close to 6 bits).
	maxEntropyThreshold = 4.5
)

// Byte classes for findHighEntropy.
const (
	classRun   = 1 << iota // [A-Za-z0-9+/_-]
	classLower             // a-z
	classUpper             // A-Z
	classDigit             // 0-9

	classAlnum = classLower | classUpper | classDigit
)

// byteClass holds the classes of each byte value.
const byteClass = "" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x01\x00\x01\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x00\x00\x00\x00\x00\x00" +
	"\x00\x05\x05\x05\x05\x05\x05\x05\x05\x05\x05\x05\x05\x05\x05\x05\x05\x05\x05\x05\x05\x05\x05\x05\x05\x05\x05\x00\x00\x00\x00\x01" +
	"\x00\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"

// highEntropy appends the span of the run s[start:end] of entropy bytes
// (with the '=' padding after it) when it looks random, or of its parts
// between '/' that do.
func highEntropy(s string, start, end int, spans []span) []span {
	if end-start < minEntropyLen {
		return spans
	}
	padded := end
	for padded < len(s) && s[padded] == '=' && padded-end < 2 {
		padded++
	}
	if !filePath(s[start:end]) && randomLooking(s[start:end]) {
		if !checksumBefore(s, start) && !checksumPrefix(s[start:end]) && !publicID(s[start:end]) && !insideMarker(s, start, end) {
			a, e := trimPathWords(s[start:end])
			if e < end-start {
				padded = start + e
			}
			spans = append(spans, span{start + a, padded, kindHighEntropy})
		}
		return spans
	}
	// A path or URL made of words can end in a random part:
	// /api/webhooks/123/<token>.
	for p := start; p < end; {
		q := p + strings.IndexByte(s[p:end], '/')
		if q < p {
			q = end
		}
		if q-p >= minEntropyLen && randomLooking(s[p:q]) && !insideMarker(s, p, q) {
			e := q
			if q == end {
				e = padded
			}
			spans = append(spans, span{p, e, kindHighEntropy})
		}
		p = q + 1
	}
	return spans
}

// filePath reports whether a run is an absolute file path: it starts with
// '/' and a folder named by letters only (/tmp, /home, /Users), and has no
// '+', which base64 has and paths seldom do. Its parts are judged one by
// one, so that a folder with a random suffix (/tmp/TestX123456789/…) does
// not make the whole path a secret, while a long random part still is one.
func filePath(v string) bool {
	if len(v) < 2 || v[0] != '/' || strings.IndexByte(v, '+') >= 0 {
		return false
	}
	first, _, _ := strings.Cut(v[1:], "/")
	if first == "" {
		return false
	}
	for i := 0; i < len(first); i++ {
		if byteClass[first[i]]&(classLower|classUpper) == 0 {
			return false
		}
	}
	return true
}

// randomLooking applies the class, word and entropy conditions to a run.
func randomLooking(v string) bool {
	var classes byte
	words, lowRun := 0, 0
	for i := 0; i < len(v); i++ {
		c := byteClass[v[i]]
		if c&classUpper != 0 && timestampLetter(v, i) {
			c = classRun | classDigit
		}
		classes |= c
		if c&classLower != 0 {
			lowRun++
			continue
		}
		if lowRun >= 4 {
			words += lowRun
		}
		lowRun = 0
	}
	if lowRun >= 4 {
		words += lowRun
	}
	return classes&classAlnum == classAlnum &&
		4*words <= len(v) && shannon(v) >= min(0.8*math.Log2(float64(len(v))), maxEntropyThreshold)
}

// timestampLetter reports whether v[i] is the T or the Z of a compact
// ISO 8601 time, 20261201T122934Z.
func timestampLetter(v string, i int) bool {
	switch v[i] {
	case 'T':
		return digitsAt(v, i-8, 8) && digitsAt(v, i+1, 6)
	case 'Z':
		return i >= 15 && v[i-7] == 'T' && digitsAt(v, i-15, 8) && digitsAt(v, i-6, 6)
	}
	return false
}

// digitsAt reports whether v[from:from+n] is n decimal digits.
func digitsAt(v string, from, n int) bool {
	if from < 0 || from+n > len(v) {
		return false
	}
	for _, c := range []byte(v[from : from+n]) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// checksumBefore reports whether the value at s[i] follows a checksum or
// public key prefix.
func checksumBefore(s string, i int) bool {
	before := s[max(0, i-len("ecdsa-sha2-nistp521 ")):i]
	for _, p := range [...]string{"h1:", "SHA256:", "base64,"} {
		if strings.HasSuffix(before, p) {
			return true
		}
	}
	if strings.HasSuffix(before, " ") {
		w := before[strings.LastIndexAny(before[:len(before)-1], " \t\n\"'")+1:]
		return strings.HasPrefix(w, "ssh-") || strings.HasPrefix(w, "ecdsa-") || strings.HasPrefix(w, "sk-ssh-") || strings.HasPrefix(w, "sk-ecdsa-")
	}
	return false
}

// publicID reports whether a run is the id of an object of a model API or of
// Stripe, which transcripts and logs are full of and which give no access:
// toolu_01…, msg_01…, req_01…, chatcmpl-…, call_…, evt_…, cus_….
func publicID(v string) bool {
	i := strings.IndexAny(v, "_-")
	if i <= 0 {
		return false
	}
	switch v[:i] {
	case "toolu", "srvtoolu", "msg", "req", "msgbatch", "file", // Anthropic
		"chatcmpl", "call", "resp", "run", "thread", "asst", "batch", "step", "vs", "ft", "org", // OpenAI
		"cus", "pi", "ch", "evt", "price", "prod", "sub", "in", "acct", "txn", "po", "re", "seti", "pm", "cs", "ii", "il": // Stripe
		return true
	}
	return false
}

// checksumPrefix reports whether a run is a subresource integrity value
// (sha512-…), whose '-' makes the prefix part of the run.
func checksumPrefix(v string) bool {
	for _, p := range [...]string{"sha1-", "sha256-", "sha384-", "sha512-"} {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return false
}

// trimPathWords returns the part of a random-looking run that is left when
// leading and trailing '/'-separated parts made of lower-case letters only
// or of digits only (api, webhooks, 1187654321, edit) are taken off, as long
// as what is left still looks random.
func trimPathWords(v string) (start, end int) {
	start, end = 0, len(v)
	for {
		i := strings.IndexByte(v[start:end], '/')
		if i < 0 || !plainPart(v[start:start+i]) || !longRandom(v[start+i+1:end]) {
			break
		}
		start += i + 1
	}
	for {
		i := strings.LastIndexByte(v[start:end], '/')
		if i < 0 || !plainPart(v[start+i+1:end]) || !longRandom(v[start:start+i]) {
			break
		}
		end = start + i
	}
	return start, end
}

func longRandom(v string) bool { return len(v) >= minEntropyLen && randomLooking(v) }

// plainPart reports whether a part of a path is lower-case letters only or
// digits only.
func plainPart(p string) bool {
	var classes byte
	for i := 0; i < len(p); i++ {
		classes |= byteClass[p[i]]
	}
	return classes == classRun|classLower || classes == classRun|classDigit
}
