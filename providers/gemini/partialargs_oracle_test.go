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
)

// The assembly of partialArgs pieces as it was before argTree kept its
// nodes in a reused store and wrote one buffer: a tree of nodes, each
// allocated, keys in maps, strings quoted by encoding/json. It is the
// oracle of TestArgTreeLikeOracle and FuzzArgTree, kept verbatim but for
// the names.

// oracleTree assembles a call's arguments: whole, as args sent them, or from
// Vertex partialArgs pieces, keeping keys in arrival order, so the JSON it
// writes reads as the model wrote it. The zero tree with max set holds the
// empty object; the tree of pieces is built only when a piece comes.
type oracleTree struct {
	// root is the tree of partialArgs pieces, nil before the first.
	root *oracleNode
	// whole holds args sent whole, compacted, when hasWhole is set; it
	// replaces any tree.
	whole    string
	hasWhole bool
	max      int
	size     int
	lastPath string
	lastCont bool // the last piece of lastPath had willContinue
}

type oracleNode struct {
	kind   byte // 'o' object, 'a' array, 's' string, 'v' raw scalar
	keys   []string
	fields map[string]*oracleNode
	elems  []*oracleNode
	str    []byte
	raw    json.RawMessage
}

// apply merges one functionCall part's args (replacing everything) and
// partialArgs pieces. Args are the bytes of one valid JSON value, as the
// chunk's decoding (either path) checked them; strs holds their compacted
// text, or, when view is not nil, the arguments are the args bytes
// themselves when compact and else their compacted text appended to
// *view, valid as long as the chunk's bytes and *view are.
func (t *oracleTree) apply(fc *wireFunctionCall, strs *jsonscan.Strings, view *[]byte) error {
	if a := bytes.TrimSpace(fc.Args); len(a) > 0 && string(a) != "null" {
		if a[0] != '{' {
			return fmt.Errorf("%w: functionCall.args must be a JSON object", core.ErrMalformed)
		}
		if len(a) > t.max {
			return fmt.Errorf("%w: arguments exceed %d bytes", core.ErrTooLarge, t.max)
		}
		// Keep the object as sent, compacted: it replaces any whole value
		// and must agree with the pieces before it.
		c := a
		if !fc.compact {
			c = strs.Compact(a)
		}
		if t.root != nil {
			if pieces := t.json(); string(c) != pieces {
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
		t.root, t.whole, t.hasWhole, t.size = nil, whole, true, len(c)
	}
	for i, pa := range fc.PartialArgs {
		if err := t.piece(pa); err != nil {
			return fmt.Errorf("partialArgs[%d] (%s): %w", i, pa.JSONPath, err)
		}
	}
	return nil
}

type oracleSeg struct {
	key   string
	index int
	isIdx bool
}

// oracleParsePath reads the JSON Path subset partialArgs use: $ followed by
// .name, ['name'] or [n] segments.
func oracleParsePath(p string) ([]oracleSeg, error) {
	if !strings.HasPrefix(p, "$") {
		return nil, fmt.Errorf("%w: jsonPath %q does not start with $", core.ErrMalformed, p)
	}
	var segs []oracleSeg
	i := 1
	for i < len(p) {
		switch p[i] {
		case '.':
			j := i + 1
			for j < len(p) && p[j] != '.' && p[j] != '[' {
				j++
			}
			if j == i+1 {
				return nil, fmt.Errorf("%w: empty name in jsonPath %q", core.ErrMalformed, p)
			}
			segs = append(segs, oracleSeg{key: p[i+1 : j]})
			i = j
		case '[':
			end := strings.IndexByte(p[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("%w: unclosed [ in jsonPath %q", core.ErrMalformed, p)
			}
			in := p[i+1 : i+end]
			if len(in) >= 2 && (in[0] == '\'' || in[0] == '"') && in[len(in)-1] == in[0] {
				segs = append(segs, oracleSeg{key: in[1 : len(in)-1]})
			} else {
				n, err := strconv.Atoi(in)
				if err != nil || n < 0 {
					return nil, fmt.Errorf("%w: bad index %q in jsonPath %q", core.ErrMalformed, in, p)
				}
				segs = append(segs, oracleSeg{index: n, isIdx: true})
			}
			i += end + 1
		default:
			return nil, fmt.Errorf("%w: unexpected %q in jsonPath %q", core.ErrMalformed, p[i], p)
		}
	}
	if len(segs) == 0 {
		return nil, fmt.Errorf("%w: jsonPath %q names the root, not an argument", core.ErrMalformed, p)
	}
	return segs, nil
}

func (t *oracleTree) piece(pa wirePartialArg) error {
	segs, err := oracleParsePath(pa.JSONPath)
	if err != nil {
		return err
	}
	if t.hasWhole {
		return fmt.Errorf("%w: partialArgs after complete args", core.ErrMalformed)
	}
	if t.root == nil {
		t.root = oracleNewNode('o')
	}
	cur := t.root
	for i, sg := range segs[:len(segs)-1] {
		want := byte('o')
		if segs[i+1].isIdx {
			want = 'a'
		}
		cur, err = t.child(cur, sg, want)
		if err != nil {
			return err
		}
	}
	lastSeg := segs[len(segs)-1]
	cont := t.lastPath == pa.JSONPath && t.lastCont
	t.lastPath, t.lastCont = pa.JSONPath, pa.WillContinue
	switch {
	case pa.StringValue != nil:
		if cont {
			n, err := t.child(cur, lastSeg, 's')
			if err != nil {
				return err
			}
			t.size += len(*pa.StringValue)
			n.str = append(n.str, *pa.StringValue...)
		} else {
			if err := t.set(cur, lastSeg, &oracleNode{kind: 's', str: []byte(*pa.StringValue)}); err != nil {
				return err
			}
			t.size += len(*pa.StringValue) + 2
		}
	case pa.NumberValue != nil:
		var n json.Number
		if err := json.Unmarshal(pa.NumberValue, &n); err != nil {
			return fmt.Errorf("%w: numberValue: %v", core.ErrMalformed, err)
		}
		if err := t.set(cur, lastSeg, &oracleNode{kind: 'v', raw: json.RawMessage(n.String())}); err != nil {
			return err
		}
		t.size += len(n)
	case pa.BoolValue != nil:
		if err := t.set(cur, lastSeg, &oracleNode{kind: 'v', raw: json.RawMessage(strconv.FormatBool(*pa.BoolValue))}); err != nil {
			return err
		}
		t.size += 5
	case pa.NullValue != nil:
		if err := t.set(cur, lastSeg, &oracleNode{kind: 'v', raw: json.RawMessage("null")}); err != nil {
			return err
		}
		t.size += 4
	default:
		// A piece without a value only marks the path.
	}
	t.size += len(lastSeg.key) + 4
	if t.size > t.max {
		return fmt.Errorf("%w: arguments exceed %d bytes", core.ErrTooLarge, t.max)
	}
	return nil
}

// child returns the node at sg under cur, creating it with kind want.
func (t *oracleTree) child(cur *oracleNode, sg oracleSeg, want byte) (*oracleNode, error) {
	if sg.isIdx {
		if cur.kind != 'a' {
			return nil, fmt.Errorf("%w: index [%d] into a non-array", core.ErrMalformed, sg.index)
		}
		switch {
		case sg.index < len(cur.elems):
			n := cur.elems[sg.index]
			if n.kind != want {
				return nil, fmt.Errorf("%w: element [%d] changes type", core.ErrMalformed, sg.index)
			}
			return n, nil
		case sg.index == len(cur.elems):
			n := oracleNewNode(want)
			cur.elems = append(cur.elems, n)
			return n, nil
		}
		return nil, fmt.Errorf("%w: index [%d] skips elements (array has %d)", core.ErrMalformed, sg.index, len(cur.elems))
	}
	if cur.kind != 'o' {
		return nil, fmt.Errorf("%w: member %q of a non-object", core.ErrMalformed, sg.key)
	}
	if n, ok := cur.fields[sg.key]; ok {
		if n.kind != want {
			return nil, fmt.Errorf("%w: member %q changes type", core.ErrMalformed, sg.key)
		}
		return n, nil
	}
	n := oracleNewNode(want)
	cur.keys = append(cur.keys, sg.key)
	cur.fields[sg.key] = n
	return n, nil
}

func oracleNewNode(kind byte) *oracleNode {
	n := &oracleNode{kind: kind}
	if kind == 'o' {
		n.fields = map[string]*oracleNode{}
	}
	return n
}

// set puts a value at sg under cur, replacing what was there.
func (t *oracleTree) set(cur *oracleNode, sg oracleSeg, v *oracleNode) error {
	if sg.isIdx {
		if cur.kind != 'a' {
			return fmt.Errorf("%w: index [%d] into a non-array", core.ErrMalformed, sg.index)
		}
		switch {
		case sg.index < len(cur.elems):
			cur.elems[sg.index] = v
		case sg.index == len(cur.elems):
			cur.elems = append(cur.elems, v)
		default:
			return fmt.Errorf("%w: index [%d] skips elements (array has %d)", core.ErrMalformed, sg.index, len(cur.elems))
		}
		return nil
	}
	if cur.kind != 'o' {
		return fmt.Errorf("%w: member %q of a non-object", core.ErrMalformed, sg.key)
	}
	if _, ok := cur.fields[sg.key]; !ok {
		cur.keys = append(cur.keys, sg.key)
	}
	cur.fields[sg.key] = v
	return nil
}

// json writes the assembled arguments.
func (t *oracleTree) json() string {
	switch {
	case t.hasWhole:
		return t.whole
	case t.root == nil:
		return "{}"
	}
	var b bytes.Buffer
	t.root.write(&b)
	return b.String()
}

func (n *oracleNode) write(b *bytes.Buffer) {
	switch n.kind {
	case 'o':
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			n.fields[k].write(b)
		}
		b.WriteByte('}')
	case 'a':
		b.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			e.write(b)
		}
		b.WriteByte(']')
	case 's':
		sb, _ := json.Marshal(string(n.str))
		b.Write(sb)
	default:
		b.Write(n.raw)
	}
}
