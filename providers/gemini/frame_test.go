package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
	"github.com/toolconform/conform/providers/internal/wire"
	"pgregory.net/rapid"
)

// oracleFrames frames the JSON forms with encoding/json's Decoder over a
// size-limited reader, as the decoder did before jsonFrames: the oracle
// of the differential tests. It keeps that framing's errors but for five
// the framer corrects, and the oracle with it:
//   - data after the array's ']' is "data after the end of the stream"
//     at its first byte, whatever the byte (the Decoder's Token placed it
//     past a bracket, one byte early for a ',' or ':', past a scalar, or at
//     its own count of the bytes it scanned, which skips white space);
//   - a '}' or ']' where an element's ',' or a value belongs is placed at
//     itself (syntaxError's -1 took one byte off an offset that already
//     pointed at it);
//   - a missing ',' between elements is placed where the ',' belongs (the
//     old one fell on the first syntax error of the next element, as far
//     as the reads had brought it, so that its place hung on their sizes);
//   - the size limit reached in white space between values is
//     core.ErrTooLarge (it was core.ErrMalformed, with the limit's error
//     as text);
//   - a read error of the body is passed on (wrapped, %w), not reported
//     as malformed JSON.
type oracleFrames struct {
	dec     *json.Decoder
	lim     *oracleLimit
	inArray bool
	elems   int
	after   bool
}

func (o *oracleFrames) next(f *jsonFrames) ([]byte, int64, error) {
	if o.dec == nil {
		o.lim = &oracleLimit{r: f.src, max: f.max, base: f.at}
		o.dec = json.NewDecoder(o.lim)
		if f.state == framesArrayStart {
			if _, err := o.dec.Token(); err != nil {
				return nil, 0, o.tokenError(err)
			}
			o.inArray = true
			o.lim.mark(o.dec.InputOffset())
		}
	}
	if o.after {
		return o.rest()
	}
	if !o.dec.More() {
		if o.inArray {
			tok, err := o.dec.Token()
			if err == io.EOF {
				return nil, 0, placed(o.dec.InputOffset()+o.lim.base, fmt.Errorf("%w: stream ended before the closing ] of the JSON array", core.ErrMalformed))
			}
			if err != nil {
				return nil, 0, o.tokenError(err)
			}
			if d, ok := tok.(json.Delim); !ok || d != ']' {
				return nil, 0, placed(o.dec.InputOffset()+o.lim.base, fmt.Errorf("%w: unexpected %v in the JSON array", core.ErrMalformed, tok))
			}
			o.inArray, o.after = false, true
			o.lim.mark(o.dec.InputOffset())
			return o.rest()
		}
		if _, err := o.dec.Token(); err != io.EOF {
			return nil, 0, o.tokenError(err)
		}
		return nil, 0, io.EOF
	}
	var raw json.RawMessage
	from := o.dec.InputOffset()
	if err := o.dec.Decode(&raw); err != nil {
		var de *DecodeError
		if errors.As(err, &de) {
			return nil, 0, err
		}
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, 0, placed(o.dec.InputOffset()+o.lim.base, fmt.Errorf("%w: stream ended inside a JSON value", core.ErrMalformed))
		}
		var se *json.SyntaxError
		if !errors.As(err, &se) {
			return nil, 0, fmt.Errorf("%s: %w", streamOp, err)
		}
		if se.Error() == "expected comma after array element" {
			return nil, 0, placed(o.lim.base+se.Offset, fmt.Errorf("%w: %v", core.ErrMalformed, err))
		}
		if off, ok := o.lim.errorOffset(from, o.inArray && o.elems > 0); ok {
			return nil, 0, placed(off, fmt.Errorf("%w: %v", core.ErrMalformed, err))
		}
		return nil, 0, placed(o.lim.base+from, fmt.Errorf("%w: in the JSON value starting after this offset: %v", core.ErrMalformed, err))
	}
	end := o.dec.InputOffset()
	o.lim.mark(end)
	o.elems++
	return raw, o.lim.base + end - int64(len(raw)), nil
}

func placed(off int64, err error) error { return wire.Placed(streamOp, off, "", err) }

// tokenError is the error of the Decoder's Token where a ',' or the end
// belongs.
func (o *oracleFrames) tokenError(err error) error {
	var de *DecodeError
	if errors.As(err, &de) {
		return err
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return placed(o.lim.base+se.Offset, fmt.Errorf("%w: %v", core.ErrMalformed, err))
	}
	return fmt.Errorf("%s: %w", streamOp, err)
}

// rest checks that only white space follows the array.
func (o *oracleFrames) rest() ([]byte, int64, error) {
	r := io.MultiReader(o.dec.Buffered(), o.lim)
	off := o.dec.InputOffset()
	var b [1]byte
	for {
		n, err := r.Read(b[:])
		if n == 1 {
			if c := b[0]; c != ' ' && c != '\t' && c != '\r' && c != '\n' {
				return nil, 0, placed(o.lim.base+off, fmt.Errorf("%w: data after the end of the stream", core.ErrMalformed))
			}
			off++
			continue
		}
		if err == io.EOF {
			return nil, 0, io.EOF
		}
		if err != nil {
			return nil, 0, o.tokenError(err)
		}
	}
}

// oracleLimit lets the Decoder read at most max bytes past the end of the
// last complete value, and keeps the bytes since, to place its errors.
type oracleLimit struct {
	r      io.Reader
	max    int64
	base   int64
	n      int64
	last   int64
	kept   []byte
	keptAt int64
}

func (l *oracleLimit) mark(off int64) {
	l.last = off
	if d := off - l.keptAt; d > 0 && d <= int64(len(l.kept)) {
		l.kept = append(l.kept[:0], l.kept[d:]...)
		l.keptAt = off
	}
}

// errorOffset finds the stream offset of a syntax error in the value that
// starts at or after decoder offset from, skipping space and, when
// separated is set, one comma.
func (l *oracleLimit) errorOffset(from int64, separated bool) (int64, bool) {
	i := from - l.keptAt
	if i < 0 || i > int64(len(l.kept)) {
		return 0, false
	}
	b := l.kept[i:]
	space := func(j int) int {
		for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r' || b[j] == '\n') {
			j++
		}
		return j
	}
	j := space(0)
	if separated && j < len(b) && b[j] == ',' {
		j = space(j + 1)
	}
	var v json.RawMessage
	err := json.NewDecoder(bytes.NewReader(b[j:])).Decode(&v)
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset > 0 {
		return l.base + from + int64(j) + se.Offset - 1, true
	}
	return 0, false
}

func (l *oracleLimit) Read(p []byte) (int, error) {
	room := l.max - (l.n - l.last)
	if room <= 0 {
		return 0, placed(l.base+l.last, fmt.Errorf("%w: JSON value starting near here exceeds %d bytes", core.ErrTooLarge, l.max))
	}
	if int64(len(p)) > room {
		p = p[:room]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	l.kept = append(l.kept, p[:n]...)
	return n, err
}

// decodeFramed drains a stream of body read through r, framed by the
// framer or, with oracle set, by oracleFrames.
func decodeFramed(a *Adapter, r io.Reader, oracle bool) ([]core.Event, adaptertest.ErrorFacts) {
	s := a.newStream(r)
	if oracle {
		s.frameOracle = new(oracleFrames).next
	}
	return adaptertest.DrainFacts(s)
}

// checkFramedLikeOracle fails when the framer, reading body through r,
// gives other events or another error than the oracle reading it whole.
func checkFramedLikeOracle(t adaptertest.Fataler, a *Adapter, body []byte, r io.Reader) {
	t.Helper()
	want, wantErr := decodeFramed(a, bytes.NewReader(body), true)
	got, gotErr := decodeFramed(a, r, false)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%.200q: events (-oracle +framer):\n%s", body, diff)
	}
	if diff := cmp.Diff(wantErr, gotErr); diff != "" {
		t.Fatalf("%.200q: error (-oracle +framer):\n%s", body, diff)
	}
}

// asArray turns an SSE body of one data line per event into the
// one-JSON-array form, its elements separated as Gemini does (",\r\n").
func asArray(sse []byte) []byte {
	var elems []string
	for _, line := range strings.Split(string(sse), "\n") {
		if d, ok := strings.CutPrefix(strings.TrimSuffix(line, "\r"), "data: "); ok {
			elems = append(elems, d)
		}
	}
	return []byte("[" + strings.Join(elems, ",\r\n") + "]")
}

// arrayBodies are the bodies of the framer's tests: every recorded stream
// of the array form, the array form of every recorded SSE stream and of
// the generated streams, and hand-made edge cases.
func arrayBodies(t testing.TB) [][]byte {
	var bodies [][]byte
	recorded := 0
	for _, b := range corpusBodies(t) {
		switch lead := bytes.TrimLeft(b, " \t\r\n"); {
		case len(lead) > 0 && lead[0] == '[':
			bodies = append(bodies, b)
			recorded++
		case isStream(b):
			bodies = append(bodies, asArray(b))
		}
	}
	if recorded < 8 {
		t.Fatalf("%d recorded array streams, want the 8 of the corpus", recorded)
	}
	for _, b := range append(append([]string{string(typicalStream(20)), string(callsStream(5))}, reuseBodies...), vouchBodies...) {
		bodies = append(bodies, asArray([]byte(b)))
	}
	for _, s := range frameEdges {
		bodies = append(bodies, []byte(s))
	}
	return bodies
}

// frameEdges are hand-made bodies at the edges of the framing.
var frameEdges = []string{
	`[]`, ` [ ] `, "\n[\r\n" + textChunk("a") + "\r\n,\r\n" + textChunk("b") + "\n]\n",
	`[{"candidates":[{"content":{"parts":[{"text":"] } [ { \" \\\" \\\\"}]}}]}]`,
	`[{"candidates":[{"content":{"parts":[{"text":"\\\\"}]},"x":[[[{"a":[]}]],{}]}]}]`,
	`[{"candidates":[{"content":{"parts":[{"text":"\u00e9\ud83d\ude00 \/ \b\f\n\r\t"}]}}]}]`,
	`[{"candidates":[]}`, `[{"candidates":[]},`, `[{"candidates":[]}, `, `[{"candidates":[]}]]`, `[{"candidates":[]}]}`,
	`[{"candidates":[]}}`, `[}`, `[]]`, `[]x`, `[] [`, `[],`, `[]"x"`, `[]1`, `[] tru`,
	`[{"candidates":[]} {"candidates":[]}]`, `[{"candidates":[]} x]`, `[{"candidates":[]},]`,
	`[null]`, `[null,{"candidates":[]}]`, `[1]`, `[1`, `[-`, `[tru]`, `[true`, `["x"]`, `["x`, `[[1,2]]`, `[{}]`,
	`[{"a":"\"}]"},{"b":1}]`, `[{"a":"\\"},{"b":"\\\"]"}]`, `[{"a":"x\\\\\"}"}]`, `[{"a":"\\\"]}"}, {"candidates":[]}]`,
	`[{"a":1]`, `[{"a" 1}]`, `[{"a":"\x"}]`, "[{\"a\":\"\x01\"}]", `[{"a":"\u12"}]`, `[{"a":"`, `[{"a":"\`, `[{"a":"\"`,
	`[{"candidates":[{"content":{"parts":[{"text":"x` + "\xff" + `"}]}}]}]`,
	`{"candidates":[]}{"candidates":[]}`, `{"candidates":[]} {"candidates":[]}]`, `{"candidates":[]}}`,
	`{"candidates":[]},{"candidates":[]}`, `{"candidates":[]} x`, `{"candidates":[]} 1`, `{"candidates":[]`,
	"[" + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "]",
	"[" + strings.Repeat(" ", 5000) + textChunk(strings.Repeat("z", 9000)) + strings.Repeat("\n", 300) + "]",
}

// TestFramesLikeOracle: the framer gives the events and the error the
// Decoder's framing gives (oracleFrames), over every body of arrayBodies,
// whole and cut anywhere, with a byte inserted, under size limits that cut
// through them, read in random pieces.
func TestFramesLikeOracle(t *testing.T) {
	bodies := arrayBodies(t)
	def := New()
	for _, b := range bodies {
		checkFramedLikeOracle(t, def, b, bytes.NewReader(b))
	}
	rapid.Check(t, func(t *rapid.T) {
		b := bodies[rapid.IntRange(0, len(bodies)-1).Draw(t, "body")]
		if rapid.Bool().Draw(t, "cut") {
			b = b[:rapid.IntRange(0, len(b)).Draw(t, "at")]
		}
		if rapid.Bool().Draw(t, "insert") {
			at := rapid.IntRange(0, len(b)).Draw(t, "where")
			c := rapid.SampledFrom([]byte("{}[]\",:\\ \nx1\x01")).Draw(t, "byte")
			b = append(append(append([]byte(nil), b[:at]...), c), b[at:]...)
		}
		a := def
		if rapid.Bool().Draw(t, "limit") {
			a = New(WithMaxEventSize(rapid.IntRange(1, len(b)+1).Draw(t, "max")))
		}
		checkFramedLikeOracle(t, a, b, adaptertest.DrawSplitReader(t, b))
	})
}

// FuzzArrayForm: the framer gives what the Decoder's framing gives
// (oracleFrames) for any body of the JSON forms (one that starts with
// neither '[' nor '{' gets a '['), read in small pieces, under the default
// size limit and one of 256 bytes.
func FuzzArrayForm(f *testing.F) {
	for _, b := range arrayBodies(f) {
		f.Add(b)
	}
	def, small := New(), New(WithMaxEventSize(256))
	f.Fuzz(func(t *testing.T, data []byte) {
		if lead := bytes.TrimLeft(data, " \t\r\n"); len(lead) == 0 || lead[0] != '[' && lead[0] != '{' {
			data = append([]byte("["), data...)
		}
		checkFramedLikeOracle(t, def, data, adaptertest.SmallReads(data))
		checkFramedLikeOracle(t, small, data, adaptertest.SmallReads(data))
	})
}

// TestArrayFormReused: core.Collect gives the same Response and error
// whether or not the stream reuses its events' storage (the framer's
// buffer among it), whether or not it uses VouchArgs, and from four
// goroutines at once, pooled decoders and their buffers passing between
// them, over the bodies of the framer's tests.
func TestArrayFormReused(t *testing.T) {
	bodies := arrayBodies(t)
	adaptertest.CheckCollectReused(t, bodies, New().DecodeStream)
	adaptertest.CheckCollectConcurrent(t, bodies, New().DecodeStream)
	if n := adaptertest.CheckCollectVouched(t, bodies, New().DecodeStream); n < 10 {
		t.Errorf("%d arguments vouched for in the array form, want at least 10", n)
	}
}

// BenchmarkFrames frames every recorded stream of the array form, by the
// framer and by the Decoder's framing (oracleFrames): the framing alone,
// per pass over the streams, without decoding the elements.
func BenchmarkFrames(b *testing.B) {
	var bodies [][]byte
	size := 0
	for _, body := range corpusBodies(b) {
		if lead := bytes.TrimLeft(body, " \t\r\n"); len(lead) > 0 && lead[0] == '[' {
			bodies = append(bodies, body)
			size += len(body)
		}
	}
	for _, oracle := range []bool{false, true} {
		name := "framer"
		if oracle {
			name = "decoder"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			var f jsonFrames
			for b.Loop() {
				for _, body := range bodies {
					f.init(bytes.NewReader(body), DefaultMaxEventSize, 0, true)
					next := f.next
					if oracle {
						o := new(oracleFrames)
						next = func() ([]byte, int64, error) { return o.next(&f) }
					}
					for {
						if _, _, err := next(); err != nil {
							if err != io.EOF {
								b.Fatal(err)
							}
							break
						}
					}
				}
			}
		})
	}
}

// TestFramesBufferBounded: an element of the max event size decodes, one
// byte larger is refused with core.ErrTooLarge where the last value ended,
// and the framer's buffer never holds more than the limit.
func TestFramesBufferBounded(t *testing.T) {
	const max = 100 << 10
	for _, tc := range []struct {
		size    int
		tooBig  bool
		lastEnd int64
	}{{max, false, 0}, {max + 1, true, 1}} {
		text := strings.Repeat("y", tc.size-len(textChunk("")))
		body := "[" + textChunk(text) + "]"
		st := New(WithMaxEventSize(max)).newStream(adaptertest.SmallReads([]byte(body)))
		_, err := adaptertest.Drain(st)
		if got := errors.Is(err, core.ErrTooLarge); got != tc.tooBig {
			t.Errorf("element of %d bytes: error %v, want too large %v", tc.size, err, tc.tooBig)
		}
		var de *DecodeError
		if tc.tooBig && (!errors.As(err, &de) || de.Offset != tc.lastEnd) {
			t.Errorf("element of %d bytes: error %v, want one at byte %d", tc.size, err, tc.lastEnd)
		}
		if c := cap(st.frames.buf); c > max {
			t.Errorf("element of %d bytes: buffer of %d bytes, over the limit of %d", tc.size, c, max)
		}
	}
}

// TestFramesReadErrorAndLimits: a read error of the body ends the stream
// with that error (errors.Is), wherever it comes; a limit as large as an
// int allows decodes, and a limit of zero refuses the first element.
func TestFramesReadErrorAndLimits(t *testing.T) {
	errRead := errors.New("connection reset")
	body := "[" + textChunk("a") + ",\n" + textChunk("b") + "]"
	for cut := 0; cut < len(body); cut++ {
		r := io.MultiReader(strings.NewReader(body[:cut]), iotest.ErrReader(errRead))
		_, err := adaptertest.Drain(New().DecodeStream(r))
		if cut > 0 && !errors.Is(err, errRead) {
			t.Errorf("read error after %d bytes: stream error %v, want one wrapping %v", cut, err, errRead)
		}
	}
	evs, err := adaptertest.Drain(New(WithMaxEventSize(math.MaxInt)).DecodeStream(strings.NewReader(body)))
	if err != nil || len(evs) < 2 {
		t.Errorf("limit math.MaxInt: events %v, error %v; want the two texts", evs, err)
	}
	if _, err := adaptertest.Drain(New(WithMaxEventSize(0)).DecodeStream(strings.NewReader(body))); !errors.Is(err, core.ErrTooLarge) {
		t.Errorf("limit 0: error %v, want core.ErrTooLarge", err)
	}
}
