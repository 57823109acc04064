package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonscan"
	"pgregory.net/rapid"
)

// treePair assembles the arguments of one call with argTree and with the
// oracle, piece for piece.
type treePair struct {
	tree   argTree
	oracle oracleTree
	strs   jsonscan.Strings
}

func newTreePair(st *argStore, max int) *treePair {
	return &treePair{tree: argTree{max: max, st: st}, oracle: oracleTree{max: max}}
}

// apply gives fc to both trees and reports how they differ: in their
// error, or in the arguments they then write, both as a call id sees them
// and as the call's end keeps them. Two refusals are argTree's own: a path
// deeper than core.MaxDepth must be refused with core.ErrTooDeep, and a
// tree of more nodes than its bound with core.ErrTooLarge where the
// oracle writes more than max bytes. stop is set after an error: the
// stream decoder ends there.
func (p *treePair) apply(fc *wireFunctionCall) (diff string, stop bool) {
	own := ownStrings(fc)
	deep := -1
	for i, pa := range fc.PartialArgs {
		if segs, err := oracleParsePath(pa.JSONPath); err == nil && len(segs) > core.MaxDepth {
			deep = i
			break
		}
	}
	errNew := p.tree.apply(fc, &p.strs, nil)
	at := -1 // the piece errNew names
	if errNew != nil {
		if _, err := fmt.Sscanf(errNew.Error(), "partialArgs[%d]", &at); err != nil {
			at = -1
		}
	}
	// prefix applies the first n pieces to the oracle.
	prefix := func(n int) error {
		short := *own
		short.PartialArgs = own.PartialArgs[:n]
		return p.oracle.apply(&short, &p.strs, nil)
	}
	switch {
	case deep >= 0 && (at < 0 || at >= deep):
		if errOld := prefix(deep); errOld != nil {
			return p.compareErrors(errNew, errOld), true
		}
		if at != deep || !errors.Is(errNew, core.ErrTooDeep) {
			return fmt.Sprintf("piece %d nests deeper than %d: error %v, want core.ErrTooDeep", deep, core.MaxDepth, errNew), true
		}
		return "", true
	case at >= 0 && errors.Is(errNew, core.ErrTooLarge):
		errOld := prefix(at + 1)
		if errOld != nil {
			return p.compareErrors(errNew, errOld), true
		}
		if n := len(p.oracle.json()); n <= p.oracle.max {
			return fmt.Sprintf("error %v, but the oracle writes %d bytes", errNew, n), true
		}
		return "", true
	}
	errOld := p.oracle.apply(own, &p.strs, nil)
	if d := p.compareErrors(errNew, errOld); d != "" || errOld != nil {
		return d, true
	}
	return p.compareArgs(), false
}

// ownStrings returns fc with its pieces' strings copied: the fast path's
// are views of the chunk, which argTree copies what it keeps of, but the
// oracle keeps them as they are.
func ownStrings(fc *wireFunctionCall) *wireFunctionCall {
	c := *fc
	c.PartialArgs = make([]wirePartialArg, len(fc.PartialArgs))
	for i, pa := range fc.PartialArgs {
		pa.JSONPath = strings.Clone(pa.JSONPath)
		if pa.StringValue != nil {
			v := strings.Clone(*pa.StringValue)
			pa.StringValue = &v
		}
		pa.NumberValue = bytes.Clone(pa.NumberValue)
		if string(pa.NumberValue) == "null" {
			// No value, for argTree; the oracle wrote an empty one.
			pa.NumberValue = nil
		}
		c.PartialArgs[i] = pa
	}
	return &c
}

func (p *treePair) compareErrors(errNew, errOld error) string {
	switch {
	case (errNew == nil) != (errOld == nil):
		return fmt.Sprintf("error %v, oracle's %v", errNew, errOld)
	case errNew == nil:
		return ""
	case errNew.Error() != errOld.Error():
		return fmt.Sprintf("error %q, oracle's %q", errNew, errOld)
	}
	for _, target := range []error{core.ErrMalformed, core.ErrTooLarge} {
		if errors.Is(errNew, target) != errors.Is(errOld, target) {
			return fmt.Sprintf("error %v wraps %v: %v, the oracle's: %v", errNew, target, errors.Is(errNew, target), errors.Is(errOld, target))
		}
	}
	return ""
}

func (p *treePair) compareArgs() string {
	want := p.oracle.json()
	if p.tree.pieces && (!json.Valid([]byte(want)) || !utf8.ValidString(want)) {
		return fmt.Sprintf("arguments assembled from pieces are not one JSON value in UTF-8: %s", want)
	}
	if got := string(p.tree.scratchJSON()); got != want {
		return fmt.Sprintf("arguments written for an id:\n got %s\nwant %s", got, want)
	}
	if got := p.tree.json(); got != want {
		return fmt.Sprintf("arguments kept:\n got %s\nwant %s", got, want)
	}
	if p.tree.size != p.oracle.size {
		return fmt.Sprintf("size %d, oracle's %d", p.tree.size, p.oracle.size)
	}
	if p.tree.pieces && p.tree.written != len(want) {
		return fmt.Sprintf("written counts %d bytes of %d: %s", p.tree.written, len(want), want)
	}
	return ""
}

// compareStreamTrees runs the functionCall parts of a stream body through
// argTree and the oracle as the stream decoder does (a named part starts
// a call, an unnamed one continues the open call, whose last part has no
// willContinue), each chunk decoded by the fast path when it can be, as
// the decoder decodes it, and returns the first difference. One store
// serves every call, as the decoder's does. It returns the number of
// partialArgs pieces compared.
func compareStreamTrees(body []byte, st *argStore, max int) (pieces int, diff string) {
	s := New().newStream(bytes.NewReader(body))
	if s.detect() != nil {
		return 0, ""
	}
	var open *treePair
	for {
		raw, _, err := s.nextChunk()
		if err != nil {
			return pieces, ""
		}
		w, ok := s.fastResponse(raw)
		if !ok {
			w = new(wireResponse)
			if json.Unmarshal(raw, w) != nil {
				return pieces, ""
			}
		}
		if len(w.Candidates) == 0 || w.Candidates[0].Content == nil {
			continue
		}
		for i, part := range w.Candidates[0].Content.Parts {
			fc := part.FunctionCall
			switch {
			case fc == nil:
				continue
			case fc.Name != "":
				open = newTreePair(st, max)
			case open == nil:
				continue
			}
			pieces += len(fc.PartialArgs)
			d, stop := open.apply(fc)
			if d != "" {
				return pieces, fmt.Sprintf("chunk at %q, part %d: %s", raw[:min(len(raw), 80)], i, d)
			}
			if stop {
				return pieces, ""
			}
			if !fc.WillContinue {
				open = nil
			}
		}
	}
}

// TestArgTreeLikeOracle checks argTree against the oracle, the assembly
// it replaced, on every recorded stream with partialArgs, whole and cut
// at every chunk boundary, with one store reused across them all.
func TestArgTreeLikeOracle(t *testing.T) {
	var st argStore
	streams, total := 0, 0
	for _, body := range corpusBodies(t) {
		if !bytes.Contains(body, []byte(`"partialArgs"`)) {
			continue
		}
		streams++
		for _, max := range []int{DefaultMaxArgsSize, 64} {
			n, d := compareStreamTrees(body, &st, max)
			if d != "" {
				t.Fatalf("recorded stream %.60q, max %d: %s", body, max, d)
			}
			total += n
		}
	}
	// The four partialArgs recordings hold 44 pieces.
	if streams < 4 || total < 2*44 {
		t.Fatalf("compared %d pieces of %d recorded streams, want the 44 of at least 4", total, streams)
	}
}

// TestArgStoreReusedLikeOracle checks argTree against the oracle on calls
// that follow one another in one store, whose containers outgrow
// indexFrom members at the same node positions: nothing of one call may
// be found by the next.
func TestArgStoreReusedLikeOracle(t *testing.T) {
	members := func(prefix string, n int, value string) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"jsonPath":%q,%s}`, fmt.Sprintf(prefix, i), value)
		}
		return b.String()
	}
	calls := [][]string{
		{members("$.k%d", 10, `"stringValue":"x"`)},
		{members("$.j%d", 10, `"numberValue":1`), `{"jsonPath":"$.k3","boolValue":true}`, `{"jsonPath":"$.k9","stringValue":"y","willContinue":true}`, `{"jsonPath":"$.k9","stringValue":"z"}`},
		{members("$.l[%d]", 10, `"stringValue":"e"`), members("$.l[%d]", 10, `"nullValue":"NULL_VALUE"`)},
		{members("$.o.k%d", 10, `"stringValue":"v"`), `{"jsonPath":"$.o['']","numberValue":2}`, `{"jsonPath":"$.o.k1","numberValue":3}`},
		{members("$.l[%d].a", 12, `"stringValue":"w"`), `{"jsonPath":"$.l[12]","numberValue":4}`},
	}
	var st argStore
	for i, call := range calls {
		var pieces []wirePartialArg
		if err := json.Unmarshal([]byte("["+strings.Join(call, ",")+"]"), &pieces); err != nil {
			t.Fatal(err)
		}
		pair := newTreePair(&st, DefaultMaxArgsSize)
		if d, _ := pair.apply(&wireFunctionCall{PartialArgs: pieces}); d != "" {
			t.Errorf("call %d: %s", i, d)
		}
	}
}

// TestArgTreeLikeOracleDrawn checks argTree against the oracle on drawn
// sequences of functionCall parts: nested objects and arrays, indices in
// and past range, keys in every form and needing escapes, containers
// past indexFrom members, string values continued, replaced and changing
// type, numbers the fast path and encoding/json give, bad and too-deep
// paths, args sent whole among pieces, and small size limits.
func TestArgTreeLikeOracleDrawn(t *testing.T) {
	var st argStore // reused by every draw, as a pooled decoder reuses it
	rapid.Check(t, func(t *rapid.T) {
		max := rapid.SampledFrom([]int{200, 5000, DefaultMaxArgsSize}).Draw(t, "max")
		pair := newTreePair(&st, max)
		g := newPathGen()
		for part := range rapid.IntRange(1, 30).Draw(t, "parts") {
			fc := &wireFunctionCall{WillContinue: true}
			if rare(t, "whole") {
				fc.Args = json.RawMessage(rapid.SampledFrom([]string{`{"a":1}`, `{ "b" : [1, "x"] }`, `null`, `[1]`}).Draw(t, "args"))
			}
			for range rapid.IntRange(0, 10).Draw(t, "pieces") {
				fc.PartialArgs = append(fc.PartialArgs, drawPiece(t, g))
			}
			d, stop := pair.apply(fc)
			if d != "" {
				t.Fatalf("part %d %s: %s", part, mustJSONText(fc), d)
			}
			if stop {
				return
			}
		}
	})
}

// pathGen draws the paths of one call, keeping most of them valid
// against the tree they build: it knows the kind of each member drawn
// ('o' object, 'a' array, 'v' value), by a key that names it however its
// path is written, and the next index of each array, and breaks those
// rules, or draws a bad or too-deep path, only now and then.
type pathGen struct {
	kind map[string]byte
	next map[string]int
	// containers and values are the members drawn.
	containers, values []genPath
	// last is the path of the last piece, which the next one continues
	// as often as not.
	last string
}

// genPath is a member: its key in pathGen's maps and a path to it.
type genPath struct{ key, path string }

func newPathGen() *pathGen {
	return &pathGen{kind: map[string]byte{"": 'o'}, next: map[string]int{}, containers: []genPath{{"", "$"}}}
}

var (
	genKey   = rapid.SampledFrom([]string{"a", "b", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k10", "odd key", "é", "<&>", `q"t`, "a.b"})
	genPiece = rapid.StringOf(rapid.SampledFrom([]rune("ab \"\\<>&\n\t\x01é\u2028日")))
	genBad   = rapid.StringOf(rapid.SampledFrom([]rune("$.[]'\"0a-+ ")))
)

// rare draws true about once in a hundred (rapid draws small numbers
// more often than large ones, and 0 most often).
func rare(t *rapid.T, label string) bool { return rapid.IntRange(0, 9999).Draw(t, label)%100 == 37 }

// draw returns the path of a piece with a value: a value drawn before,
// again, or a member of a container drawn before, new or not.
func (g *pathGen) draw(t *rapid.T) string {
	switch {
	case rare(t, "bad"):
		return genBad.Draw(t, "bad path")
	case rare(t, "deep"):
		// Deeper than core.MaxDepth, or just at it.
		return "$" + strings.Repeat(".x", core.MaxDepth+rapid.IntRange(0, 1).Draw(t, "past"))
	case rare(t, "into a value") && len(g.values) > 0:
		return rapid.SampledFrom(g.values).Draw(t, "value").path + ".a"
	case rare(t, "value at a container"):
		return rapid.SampledFrom(g.containers).Draw(t, "container").path
	case len(g.values) > 0 && rapid.Bool().Draw(t, "again"):
		return rapid.SampledFrom(g.values).Draw(t, "value").path
	}
	p := g.containers[len(g.containers)-1]
	if !rapid.Bool().Draw(t, "last parent") {
		p = rapid.SampledFrom(g.containers).Draw(t, "parent")
	}
	for depth := 0; ; depth++ {
		m := g.member(t, p)
		switch g.kind[m.key] {
		case 'v':
			return m.path
		case 'o', 'a':
			p = m
			continue
		}
		if depth < 3 && rapid.IntRange(0, 2).Draw(t, "container") == 0 {
			g.kind[m.key] = rapid.SampledFrom([]byte("oa")).Draw(t, "kind")
			g.containers = append(g.containers, m)
			p = m
			continue
		}
		g.kind[m.key] = 'v'
		g.values = append(g.values, m)
		return m.path
	}
}

// member returns a member of the container p.
func (g *pathGen) member(t *rapid.T, p genPath) genPath {
	if g.kind[p.key] == 'a' {
		n := g.next[p.key]
		i := n
		if !rapid.Bool().Draw(t, "append") {
			i = rapid.IntRange(0, n).Draw(t, "index")
		}
		if rare(t, "skip") {
			i = n + 1
		}
		if i == n {
			g.next[p.key] = n + 1
		}
		return genPath{p.key + "[" + strconv.Itoa(i), p.path + "[" + strconv.Itoa(i) + "]"}
	}
	k := genKey.Draw(t, "key")
	m := genPath{key: p.key + "." + k}
	switch {
	case strings.Contains(k, `"`):
		m.path = p.path + "['" + k + "']"
	case strings.Contains(k, "."):
		m.path = p.path + `["` + k + `"]`
	case rapid.Bool().Draw(t, "dot"):
		m.path = p.path + "." + k
	default:
		m.path = p.path + `["` + k + `"]`
	}
	return m
}

func drawPiece(t *rapid.T, g *pathGen) wirePartialArg {
	path := g.last
	if path == "" || !rapid.Bool().Draw(t, "same path") {
		path = g.draw(t)
	}
	g.last = path
	pa := wirePartialArg{JSONPath: path, WillContinue: rapid.Bool().Draw(t, "willContinue")}
	switch rapid.IntRange(0, 6).Draw(t, "value") {
	case 0, 1, 2:
		v := genPiece.Draw(t, "string")
		pa.StringValue = &v
	case 3:
		numbers := []string{"0", "-2.5e3", "12", "1E+2", `"7"`, "null"}
		if rare(t, "not a number") {
			numbers = []string{`"x"`, "true", "[1]"}
		}
		pa.NumberValue = json.RawMessage(rapid.SampledFrom(numbers).Draw(t, "number"))
	case 4:
		b := rapid.Bool().Draw(t, "bool")
		pa.BoolValue = &b
	case 5:
		pa.NullValue = json.RawMessage(`"NULL_VALUE"`)
	}
	return pa
}

func mustJSONText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// TestArgTreeAllocations checks that a call's pieces cost no allocation
// once the stream's store has grown: assembling the recorded recipe call
// (64 pieces) in a used store and keeping its arguments costs one
// allocation, the arguments' string, however many pieces there are.
func TestArgTreeAllocations(t *testing.T) {
	var call []*wireFunctionCall
	for _, body := range corpusBodies(t) {
		if !bytes.Contains(body, []byte(`"cookRecipe"`)) || !bytes.Contains(body, []byte(`"partialArgs"`)) {
			continue
		}
		s := New().newStream(bytes.NewReader(body))
		if err := s.detect(); err != nil {
			t.Fatal(err)
		}
		for {
			raw, _, err := s.nextChunk()
			if err != nil {
				break
			}
			var w wireResponse
			if err := json.Unmarshal(raw, &w); err != nil {
				t.Fatal(err)
			}
			for _, c := range w.Candidates {
				if c.Content == nil {
					continue
				}
				for _, p := range c.Content.Parts {
					if p.FunctionCall != nil && len(p.FunctionCall.PartialArgs) > 0 {
						call = append(call, p.FunctionCall)
					}
				}
			}
		}
	}
	pieces := 0
	for _, fc := range call {
		pieces += len(fc.PartialArgs)
	}
	if pieces < 60 {
		t.Fatalf("found %d pieces of the recorded recipe call, want 64", pieces)
	}
	var st argStore
	var strs jsonscan.Strings
	var args string
	assemble := func() {
		tree := argTree{max: DefaultMaxArgsSize, st: &st}
		for _, fc := range call {
			if err := tree.apply(fc, &strs, nil); err != nil {
				t.Fatal(err)
			}
		}
		args = tree.json()
	}
	assemble() // grows the store
	if n := testing.AllocsPerRun(20, assemble); n != 1 {
		t.Errorf("assembling %d pieces into %d bytes of arguments in a used store costs %v allocations, want 1", pieces, len(args), n)
	}
	if !json.Valid([]byte(args)) {
		t.Errorf("arguments are not JSON: %s", args)
	}
}

// FuzzArgTree checks argTree against the oracle on stream bodies, seeded
// from the recorded streams with partialArgs and the stream tests' pieces.
func FuzzArgTree(f *testing.F) {
	for _, body := range corpusBodies(f) {
		if bytes.Contains(body, []byte(`"partialArgs"`)) {
			f.Add(body)
		}
	}
	for _, s := range knownBad {
		f.Add([]byte(s))
	}
	f.Add([]byte(sseBody(
		`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"w","willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.items[0].name","stringValue":"ap","willContinue":true}],"willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.items[0].name","stringValue":"p\u00e9\"le"},{"jsonPath":"$.items[0].n","numberValue":2.5}],"willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.items[1].name","stringValue":"pear"},{"jsonPath":"$.ok","boolValue":true},{"jsonPath":"$['odd key']","nullValue":"NULL_VALUE"}]}}]}}]}`,
	)))
	var st argStore
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, d := compareStreamTrees(body, &st, 1<<12); d != "" {
			t.Fatal(d)
		}
	})
}

// piecesStream is a stream of one call whose 16 KB string argument, with
// characters to escape, comes in n partialArgs pieces, one chunk each.
func piecesStream(n int) []byte {
	const size = 16 << 10
	unit := strings.Repeat(`ab\"c\n`, size/(6*n)+1)[:size/n]
	chunks := []string{`{"candidates":[{"content":{"parts":[{"functionCall":{"id":"c1","name":"write","willContinue":true}}]}}]}`}
	for i := range n {
		path := "$.files[0].text"
		if i == 0 {
			chunks = append(chunks, `{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.files[0].name","stringValue":"a.txt"}],"willContinue":true}}]}}]}`)
		}
		chunks = append(chunks, `{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"`+path+`","stringValue":"`+unit+`","willContinue":true}],"willContinue":true}}]}}]}`)
	}
	chunks = append(chunks, `{"candidates":[{"content":{"parts":[{"functionCall":{}}]},"finishReason":"STOP"}]}`)
	return []byte(sseBody(chunks...))
}

// BenchmarkPartialArgsPieces decodes and collects a call of 16 KB of
// argument text sent in 16 to 4096 pieces: its allocations (allocs/op)
// follow the bytes kept, the same in every case, not the pieces.
func BenchmarkPartialArgsPieces(b *testing.B) {
	a := New()
	for _, n := range []int{16, 256, 4096} {
		body := piecesStream(n)
		b.Run(fmt.Sprintf("pieces=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				resp, err := core.Collect(a.DecodeStream(bytes.NewReader(body)))
				if err != nil || len(resp.Calls()) != 1 {
					b.Fatalf("%d calls, %v", len(resp.Calls()), err)
				}
			}
		})
	}
}
