package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/jsonscan"
	"github.com/toolconform/conform/providers/internal/jsonstr"
)

// argTree assembles a call's arguments: whole, as args sent them, or from
// Vertex partialArgs pieces, keeping keys in arrival order, so the JSON it
// writes reads as the model wrote it. What it writes from pieces is always
// one JSON value in well-formed UTF-8: numbers are checked, keys and
// strings written as encoding/json writes them. The zero tree with max and st set
// holds the empty object; the tree of pieces is built in st, the stream's
// argStore, only when a piece comes.
type argTree struct {
	// pieces is set once a piece came: st.nodes[0] is then the root.
	pieces bool
	// whole holds args sent whole, compacted, when hasWhole is set; it
	// replaces any tree.
	whole    string
	hasWhole bool
	max      int
	// size counts the bytes of every piece's key and value, replaced or
	// not; written is the length of the JSON the tree of pieces writes.
	// Both stay within max.
	size, written int
	lastCont      bool // the last piece, of path st.lastPath, had willContinue
	st            *argStore
}

// argStore holds the tree of the one call whose pieces are coming: its
// nodes, the bytes of their keys and values, and the path of its last
// piece. A stream keeps one for all its calls and a pooled decoder for
// the streams that follow (keep), so that pieces cost no allocation once
// it has grown to the size of the arguments.
type argStore struct {
	nodes []argNode
	// data holds keys and values; a string value owns data[off:off+c]
	// and grows in place while it fits or ends data, else moves to the
	// end with twice its length, so data stays within a few times the
	// bytes kept.
	data     []byte
	lastPath []byte
	// index finds the members of containers with more than indexFrom
	// of them; its keys view data, which is never written where a key
	// is until the store is reset, and reset clears it.
	index map[memberKey]int
	// out is where the tree is written for a call id made from it.
	out []byte
}

// argNode is one value of the tree. Nodes refer to each other by their
// position in argStore.nodes.
type argNode struct {
	kind byte // 'o' object, 'a' array, 's' string, 'v' raw scalar
	// off, n and c place a string's or scalar's bytes in data: n bytes
	// at off, with room for c.
	off, n, c int
	// koff and kn place an object member's key in data.
	koff, kn int
	// first and last are a container's first and last child, count its
	// children, next the following sibling; -1 for none.
	first, last, count, next int
}

// memberKey is the key of index: a container and the key or position of
// one of its members.
type memberKey struct {
	parent, index int
	key           string
}

// indexFrom is the number of members past which a container's are found
// through index rather than by a walk of its children.
const indexFrom = 8

// storeKeepSize bounds the bytes of keys and values, and the nodes, an
// argStore keeps for the next stream of a pooled decoder.
const storeKeepSize = 64 << 10

// keep returns the store for the next stream of a pooled decoder: emptied,
// its buffers kept while they are small.
func (st *argStore) keep() argStore {
	if cap(st.data) > storeKeepSize || cap(st.out) > storeKeepSize || cap(st.lastPath) > storeKeepSize || cap(st.nodes) > storeKeepSize/int(unsafe.Sizeof(argNode{})) || len(st.index) > storeKeepSize/64 {
		return argStore{}
	}
	clear(st.index)
	return argStore{nodes: st.nodes[:0], data: st.data[:0], lastPath: st.lastPath[:0], index: st.index, out: st.out[:0]}
}

// begin empties the store for a new tree, whose root is an empty object.
func (st *argStore) begin() {
	clear(st.index)
	st.nodes = append(st.nodes[:0], argNode{kind: 'o', first: -1, last: -1, next: -1})
	st.data = st.data[:0]
}

// apply merges one functionCall part's args (replacing everything) and
// partialArgs pieces. Args are the bytes of one valid JSON value, as the
// chunk's decoding (either path) checked them; strs holds their compacted
// text, or, when view is not nil, the arguments are the args bytes
// themselves when compact and else their compacted text appended to
// *view, valid as long as the chunk's bytes and *view are.
func (t *argTree) apply(fc *wireFunctionCall, strs *jsonscan.Strings, view *[]byte) error {
	if a := bytes.TrimSpace(fc.Args); len(a) > 0 && string(a) != "null" {
		if a[0] != '{' {
			return fmt.Errorf("%w: functionCall.args must be a JSON object", core.ErrMalformed)
		}
		if len(a) > t.max {
			return fmt.Errorf("%w: arguments exceed %d bytes", core.ErrTooLarge, t.max)
		}
		// Keep the object as sent, compacted: it replaces any whole value
		// before it, and must agree with any pieces before it, the rule
		// core.Buffer applies to a final after deltas: the same JSON text
		// once compacted, key order included.
		c := a
		if !fc.compact {
			c = strs.Compact(a)
		}
		if t.pieces {
			if pieces := t.scratchJSON(); !bytes.Equal(c, pieces) {
				return fmt.Errorf("%w: %w: functionCall.args %.64q differ from the partialArgs pieces before them, %.64q", core.ErrMalformed, core.ErrConflict, c, pieces)
			}
		}
		var whole string
		switch {
		case view == nil:
			whole = strs.String(c)
		case fc.compact:
			whole = unsafe.String(unsafe.SliceData(c), len(c))
		default:
			n := len(*view)
			*view = append(*view, c...)
			whole = unsafe.String(unsafe.SliceData((*view)[n:]), len(c))
		}
		t.pieces, t.whole, t.hasWhole, t.size = false, whole, true, len(c)
	}
	for i := range fc.PartialArgs {
		pa := &fc.PartialArgs[i]
		if err := t.piece(pa); err != nil {
			return fmt.Errorf("partialArgs[%d] (%s): %w", i, pa.JSONPath, err)
		}
	}
	return nil
}

type pathSeg struct {
	key   string
	index int
	isIdx bool
}

// pathIter reads the JSON Path subset partialArgs use, $ followed by
// .name, ['name'] or [n] segments, one segment at a time; keys are views
// of the path.
type pathIter struct {
	p string
	i int
}

// more reports whether a segment follows.
func (it *pathIter) more() bool { return it.i < len(it.p) }

// next reads the next segment.
func (it *pathIter) next() (pathSeg, error) {
	p, i := it.p, it.i
	switch p[i] {
	case '.':
		j := i + 1
		for j < len(p) && p[j] != '.' && p[j] != '[' {
			j++
		}
		if j == i+1 {
			return pathSeg{}, fmt.Errorf("%w: empty name in jsonPath %q", core.ErrMalformed, p)
		}
		it.i = j
		return pathSeg{key: p[i+1 : j]}, nil
	case '[':
		end := strings.IndexByte(p[i:], ']')
		if end < 0 {
			return pathSeg{}, fmt.Errorf("%w: unclosed [ in jsonPath %q", core.ErrMalformed, p)
		}
		in := p[i+1 : i+end]
		it.i = i + end + 1
		if len(in) >= 2 && (in[0] == '\'' || in[0] == '"') && in[len(in)-1] == in[0] {
			return pathSeg{key: in[1 : len(in)-1]}, nil
		}
		n, err := strconv.Atoi(in)
		if err != nil || n < 0 {
			return pathSeg{}, fmt.Errorf("%w: bad index %q in jsonPath %q", core.ErrMalformed, in, p)
		}
		return pathSeg{index: n, isIdx: true}, nil
	}
	return pathSeg{}, fmt.Errorf("%w: unexpected %q in jsonPath %q", core.ErrMalformed, p[i], p)
}

// checkPath reads the whole path p and returns its number of segments,
// at least one and at most core.MaxDepth: the tree a path builds nests
// as deep as the path is long.
func checkPath(p string) (int, error) {
	if !strings.HasPrefix(p, "$") {
		return 0, fmt.Errorf("%w: jsonPath %q does not start with $", core.ErrMalformed, p)
	}
	it := pathIter{p: p, i: 1}
	n := 0
	for it.more() {
		if _, err := it.next(); err != nil {
			return 0, err
		}
		n++
	}
	switch {
	case n == 0:
		return 0, fmt.Errorf("%w: jsonPath %q names the root, not an argument", core.ErrMalformed, p)
	case n > core.MaxDepth:
		return 0, fmt.Errorf("%w: jsonPath of %d segments nests deeper than %d", core.ErrTooDeep, n, core.MaxDepth)
	}
	return n, nil
}

func (t *argTree) piece(pa *wirePartialArg) error {
	if _, err := checkPath(pa.JSONPath); err != nil {
		return err
	}
	if t.hasWhole {
		return fmt.Errorf("%w: partialArgs after complete args", core.ErrMalformed)
	}
	st := t.st
	if !t.pieces {
		st.begin()
		t.pieces, t.written = true, len("{}")
	}
	// The path is valid: its segments read without error.
	it := pathIter{p: pa.JSONPath, i: 1}
	cur := 0
	sg, _ := it.next()
	for it.more() {
		nx, _ := it.next()
		want := byte('o')
		if nx.isIdx {
			want = 'a'
		}
		var err error
		if cur, err = t.child(cur, sg, want); err != nil {
			return err
		}
		sg = nx
	}
	cont := t.lastCont && string(st.lastPath) == pa.JSONPath
	st.lastPath, t.lastCont = append(st.lastPath[:0], pa.JSONPath...), pa.WillContinue
	switch {
	case pa.StringValue != nil:
		v := *pa.StringValue
		if cont {
			n, err := t.child(cur, sg, 's')
			if err != nil {
				return err
			}
			t.size += len(v)
			t.written += jsonstr.MarshaledLen(v) - len(`""`)
			st.appendString(n, v)
		} else {
			n, err := t.set(cur, sg, 's')
			if err != nil {
				return err
			}
			t.setValue(n, v)
			t.size += len(v) + 2
		}
	case pa.NumberValue != nil && string(pa.NumberValue) != "null":
		// numberValue null is no value, as stringValue and boolValue null
		// are (encoding/json leaves their pointers nil).
		num, err := numberText(pa.NumberValue)
		if err != nil {
			return err
		}
		n, err := t.set(cur, sg, 'v')
		if err != nil {
			return err
		}
		t.setValue(n, num)
		t.size += len(num)
	case pa.BoolValue != nil:
		n, err := t.set(cur, sg, 'v')
		if err != nil {
			return err
		}
		t.setValue(n, strconv.FormatBool(*pa.BoolValue))
		t.size += 5
	case pa.NullValue != nil:
		n, err := t.set(cur, sg, 'v')
		if err != nil {
			return err
		}
		t.setValue(n, "null")
		t.size += 4
	default:
		// A piece without a value only marks the path.
	}
	t.size += len(sg.key) + 4
	if t.size > t.max || t.written > t.max {
		return fmt.Errorf("%w: arguments exceed %d bytes", core.ErrTooLarge, t.max)
	}
	return nil
}

// numberText returns the text of a numberValue other than null: the value
// itself when it is a JSON number, else what encoding/json reads into a
// json.Number (a string holding a number).
func numberText(raw json.RawMessage) (string, error) {
	if jsonNumber(raw) {
		return unsafe.String(unsafe.SliceData(raw), len(raw)), nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", fmt.Errorf("%w: numberValue: %v", core.ErrMalformed, err)
	}
	return n.String(), nil
}

// jsonNumber reports whether b is exactly one JSON number (RFC 8259 §6).
func jsonNumber(b []byte) bool {
	p := jsonscan.New(b)
	v, ok := p.Number()
	return ok && len(v) == len(b)
}

// find returns the member sg of container cur, or -1.
func (st *argStore) find(cur int, sg pathSeg) int {
	c := &st.nodes[cur]
	if c.count > indexFrom {
		if n, ok := st.index[memberKey{parent: cur, index: sg.index, key: sg.key}]; ok {
			return n
		}
		return -1
	}
	if sg.isIdx {
		if sg.index >= c.count {
			return -1
		}
		n := c.first
		for range sg.index {
			n = st.nodes[n].next
		}
		return n
	}
	if l := c.last; l >= 0 && st.key(l) == sg.key {
		return l
	}
	for n := c.first; n >= 0; n = st.nodes[n].next {
		if st.key(n) == sg.key {
			return n
		}
	}
	return -1
}

// key returns the key of member n as a view of data.
func (st *argStore) key(n int) string {
	nd := &st.nodes[n]
	return unsafe.String(unsafe.SliceData(st.data[nd.koff:]), nd.kn)
}

// add appends a member sg of kind to container cur and returns it.
func (st *argStore) add(cur int, sg pathSeg, kind byte) int {
	n := len(st.nodes)
	nd := argNode{kind: kind, first: -1, last: -1, next: -1}
	if !sg.isIdx {
		nd.koff, nd.kn = len(st.data), len(sg.key)
		st.data = append(st.data, sg.key...)
	}
	st.nodes = append(st.nodes, nd)
	c := &st.nodes[cur]
	if c.last >= 0 {
		st.nodes[c.last].next = n
	} else {
		c.first = n
	}
	c.last = n
	c.count++
	switch {
	case c.count == indexFrom+1:
		// Index every member from now on.
		if st.index == nil {
			st.index = map[memberKey]int{}
		}
		i := 0
		for m := c.first; m >= 0; m = st.nodes[m].next {
			st.index[st.memberKey(cur, m, i)] = m
			i++
		}
	case c.count > indexFrom:
		st.index[st.memberKey(cur, n, c.count-1)] = n
	}
	return n
}

// memberKey returns the index key of member m, the i-th of container
// cur.
func (st *argStore) memberKey(cur, m, i int) memberKey {
	if st.nodes[cur].kind == 'a' {
		return memberKey{parent: cur, index: i}
	}
	return memberKey{parent: cur, key: st.key(m)}
}

// child returns the node at sg under cur, creating it with kind want.
func (t *argTree) child(cur int, sg pathSeg, want byte) (int, error) {
	n, err := t.member(cur, sg)
	switch {
	case err != nil:
		return 0, err
	case n < 0:
		return t.add(cur, sg, want), nil
	case t.st.nodes[n].kind != want && sg.isIdx:
		return 0, fmt.Errorf("%w: element [%d] changes type", core.ErrMalformed, sg.index)
	case t.st.nodes[n].kind != want:
		return 0, fmt.Errorf("%w: member %q changes type", core.ErrMalformed, sg.key)
	}
	return n, nil
}

// add is argStore.add, counting what the new member writes.
func (t *argTree) add(cur int, sg pathSeg, kind byte) int {
	if t.st.nodes[cur].count > 0 {
		t.written++ // ,
	}
	if !sg.isIdx {
		t.written += jsonstr.MarshaledLen(sg.key) + 1 // "key":
	}
	t.written += emptyLen(kind)
	return t.st.add(cur, sg, kind)
}

// emptyLen is the length of the JSON of an empty node of kind: {}, [],
// "", or nothing for a scalar before its value is set.
func emptyLen(kind byte) int {
	if kind == 'v' {
		return 0
	}
	return 2
}

// valueLen returns the length of the JSON of node n. Its recursion is as
// deep as the tree, which checkPath bounds by core.MaxDepth.
func (st *argStore) valueLen(n int) int {
	nd := &st.nodes[n]
	switch nd.kind {
	case 'o', 'a':
		l := 2
		for m := nd.first; m >= 0; m = st.nodes[m].next {
			if m != nd.first {
				l++
			}
			if nd.kind == 'o' {
				l += jsonstr.MarshaledLen(st.key(m)) + 1
			}
			l += st.valueLen(m)
		}
		return l
	case 's':
		return jsonstr.MarshaledLen(st.str(n))
	}
	return nd.n
}

// str returns the bytes of string or scalar node n as a view of data.
func (st *argStore) str(n int) string {
	nd := &st.nodes[n]
	return unsafe.String(unsafe.SliceData(st.data[nd.off:]), nd.n)
}

// member returns the node at sg under cur, or -1 when there is none yet,
// after checking that cur is the kind of container sg names a member of
// and that a new element would be the array's next.
func (t *argTree) member(cur int, sg pathSeg) (int, error) {
	st := t.st
	kind := st.nodes[cur].kind
	switch {
	case sg.isIdx && kind != 'a':
		return 0, fmt.Errorf("%w: index [%d] into a non-array", core.ErrMalformed, sg.index)
	case !sg.isIdx && kind != 'o':
		return 0, fmt.Errorf("%w: member %q of a non-object", core.ErrMalformed, sg.key)
	}
	n := st.find(cur, sg)
	if n < 0 && sg.isIdx && sg.index > st.nodes[cur].count {
		return 0, fmt.Errorf("%w: index [%d] skips elements (array has %d)", core.ErrMalformed, sg.index, st.nodes[cur].count)
	}
	return n, nil
}

// set makes the node at sg under cur a value of kind, empty, replacing
// what was there, and returns it.
func (t *argTree) set(cur int, sg pathSeg, kind byte) (int, error) {
	n, err := t.member(cur, sg)
	switch {
	case err != nil:
		return 0, err
	case n < 0:
		return t.add(cur, sg, kind), nil
	}
	st := t.st
	t.written += emptyLen(kind) - st.valueLen(n)
	nd := &st.nodes[n]
	nd.kind, nd.off, nd.n, nd.c = kind, 0, 0, 0
	nd.first, nd.last, nd.count = -1, -1, 0
	return n, nil
}

// setValue gives the empty value node n the bytes v, with no room to
// grow.
func (t *argTree) setValue(n int, v string) {
	st := t.st
	nd := &st.nodes[n]
	if nd.kind == 's' {
		t.written += jsonstr.MarshaledLen(v) - len(`""`)
	} else {
		t.written += len(v)
	}
	nd.off, nd.n, nd.c = len(st.data), len(v), len(v)
	st.data = append(st.data, v...)
}

// appendString appends v to the string node n.
func (st *argStore) appendString(n int, v string) {
	nd := &st.nodes[n]
	need := nd.n + len(v)
	switch {
	case need <= nd.c:
	case nd.off+nd.c == len(st.data):
		// The string ends data: grow it there.
		st.data = append(st.data, v[:need-nd.c]...)
		nd.c = need
	default:
		// Move it to the end, with room to double.
		c := max(2*need, 16)
		off := len(st.data)
		st.data = append(st.data, st.data[nd.off:nd.off+nd.n]...)
		st.data = append(st.data, make([]byte, c-nd.n)...)
		nd.off, nd.c = off, c
	}
	copy(st.data[nd.off+nd.n:], v)
	nd.n = need
}

// appendJSON appends the assembled arguments to dst.
func (t *argTree) appendJSON(dst []byte) []byte {
	switch {
	case t.hasWhole:
		return append(dst, t.whole...)
	case !t.pieces:
		return append(dst, "{}"...)
	}
	return t.st.write(dst, 0)
}

// write appends node n as JSON to dst. Its recursion is as deep as the
// tree, which checkPath bounds by core.MaxDepth.
func (st *argStore) write(dst []byte, n int) []byte {
	nd := &st.nodes[n]
	switch nd.kind {
	case 'o', 'a':
		open, close := byte('{'), byte('}')
		if nd.kind == 'a' {
			open, close = '[', ']'
		}
		dst = append(dst, open)
		for m := nd.first; m >= 0; m = st.nodes[m].next {
			if m != nd.first {
				dst = append(dst, ',')
			}
			if nd.kind == 'o' {
				mn := &st.nodes[m]
				dst = jsonstr.AppendMarshaled(dst, st.data[mn.koff:mn.koff+mn.kn])
				dst = append(dst, ':')
			}
			dst = st.write(dst, m)
		}
		return append(dst, close)
	case 's':
		return jsonstr.AppendMarshaled(dst, st.data[nd.off:nd.off+nd.n])
	}
	return append(dst, st.data[nd.off:nd.off+nd.n]...)
}

// json returns the assembled arguments as a string of their own.
func (t *argTree) json() string {
	if t.hasWhole {
		return t.whole
	}
	return string(t.scratchJSON())
}

// scratchJSON returns the assembled arguments written into the store's
// buffer, valid until the next call.
func (t *argTree) scratchJSON() json.RawMessage {
	t.st.out = t.appendJSON(t.st.out[:0])
	return t.st.out
}
