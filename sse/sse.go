package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/toolconform/conform/core"
)

// DefaultMaxEventSize is the block size limit used when no MaxEventSize
// option is given: 4 MiB, room for a large tool call in one event.
const DefaultMaxEventSize = 4 << 20

// ErrEventTooLarge reports a block of lines longer than the decoder's
// maximum event size. It wraps core.ErrTooLarge, the sentinel every
// adapter's size-limit errors wrap.
var ErrEventTooLarge = fmt.Errorf("event %w", core.ErrTooLarge)

// ErrBadField reports an id or event value the encoder cannot write, one
// holding a line break (or, for an id, a NUL).
var ErrBadField = errors.New("field value cannot be encoded")

// Error is a decoding error with the byte offset where it happened.
type Error struct {
	// Offset is the byte offset in the stream, counted from its first byte
	// (a byte order mark included).
	Offset int64
	Err    error
}

func (e *Error) Error() string {
	return fmt.Sprintf("sse: decode at byte %d: %v", e.Offset, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Event is one dispatched server-sent event.
type Event struct {
	// Type is the event's type, empty for an unnamed event.
	Type string
	// Data is the event's data, its data lines joined with "\n".
	Data string
	// ID is the last event id when the event was dispatched.
	ID string
	// Retry is the reconnection time in milliseconds set by the last retry
	// field before dispatch, or 0 when none was seen.
	Retry int64
}

// Option configures a Decoder.
type Option func(*Decoder)

// FlushAtEOF makes the decoder treat the end of input as the end of a line
// and of an event, so that a stream whose last event lacks the final blank
// line still dispatches it. Without it an unterminated last event is
// discarded, as the standard says.
func FlushAtEOF() Option { return func(d *Decoder) { d.flush = true } }

// MaxEventSize sets the largest block of lines the decoder accepts, in
// bytes; n <= 0 keeps DefaultMaxEventSize.
func MaxEventSize(n int) Option {
	return func(d *Decoder) {
		if n > 0 {
			d.max = n
		}
	}
}

// EventTypes gives the decoder the event types a stream is expected to
// name: an event of one of them has that string as its type, where any
// other type is a string made from the stream's bytes. A decoder of a
// protocol whose events alternate between a few types passes them, so
// that reading the types costs no allocation.
func EventTypes(names ...string) Option { return func(d *Decoder) { d.types = names } }

// Decoder reads events from an event stream one at a time.
type Decoder struct {
	r     io.Reader
	buf   []byte
	pos   int
	end   int
	rerr  error // error from r, returned once the buffer is drained
	off   int64 // offset of buf[pos]
	max   int
	flush bool

	started bool // byte order mark checked
	sawCR   bool // the last line ended with CR; skip a following LF

	// cr and lf cache the searches for line ends in buf[pos:end], so that
	// each byte is searched once for each (see lineEnd); -1 when not yet
	// searched since the last fill.
	cr, lf int

	line      []byte
	lineStart int64
	block     int   // bytes of the current block
	blockOff  int64 // offset of the current block's first line
	inBlock   bool

	data    []byte
	typ     string
	lastTyp string   // the last event type read, reused by intern
	types   []string // the expected event types (EventTypes)
	lastID  string
	retry   int64

	evOff int64
	err   error // sticky

	// lines maps the data of the event being built to stream offsets,
	// one entry per data line; last holds those of the event returned.
	// They start in linesBuf, which holds events of up to four data lines.
	lines, last []dataLine
	linesBuf    [2][4]dataLine

	// pooled is what the decoder's buffers came in from the pool, reused
	// to hand them back.
	pooled *decoderBuffers
}

// The first capacities of an event's data and of a line cut by the end
// of the read buffer, carved from the read buffer's allocation so that
// the events of a typical stream cost no allocation to grow them.
const (
	firstData = 512
	firstLine = 256
)

// dataLine says where one data line's value starts, in the event's data
// and in the stream.
type dataLine struct {
	pos int
	off int64
}

// NewDecoder returns a Decoder reading from r.
func NewDecoder(r io.Reader, opts ...Option) *Decoder {
	d := new(Decoder)
	d.Init(r, opts...)
	return d
}

// Init makes d a new Decoder reading from r, as NewDecoder returns it, for
// a caller that keeps the Decoder in its own allocation. d must not be
// copied after.
func (d *Decoder) Init(r io.Reader, opts ...Option) {
	*d = Decoder{r: r, max: DefaultMaxEventSize, cr: -1, lf: -1}
	if b, ok := buffers.Get().(*decoderBuffers); ok {
		d.buf, d.data, d.line, d.pooled = b.buf, b.data, b.line, b
	} else {
		mem := make([]byte, readBufferSize+firstData+firstLine)
		d.buf = mem[:readBufferSize:readBufferSize]
		d.data = mem[readBufferSize : readBufferSize : readBufferSize+firstData]
		d.line = mem[readBufferSize+firstData : readBufferSize+firstData : len(mem)]
	}
	d.lines, d.last = d.linesBuf[0][:0], d.linesBuf[1][:0]
	for _, o := range opts {
		o(d)
	}
}

// readBufferSize is the size of a decoder's read buffer.
const readBufferSize = 4096

// decoderBuffers are the buffers of a decoder that has ended, for the next
// decoder to reuse: a stream of a few events then costs no buffer
// allocation.
type decoderBuffers struct{ buf, data, line []byte }

// buffers holds *decoderBuffers.
var buffers sync.Pool

// maxPooled is the largest data or line buffer handed to the next
// decoder: one large event's buffer is not kept for every later stream.
const maxPooled = 64 << 10

// release hands the decoder's buffers to the next decoder once its stream
// has ended: no view of them is valid any more (event data is valid until
// the next call), and the decoder reads no more.
func (d *Decoder) release() {
	if len(d.buf) != readBufferSize {
		return // none, or a test's own
	}
	b := d.pooled
	if b == nil {
		b = &decoderBuffers{}
	}
	*b = decoderBuffers{buf: d.buf}
	if cap(d.data) <= maxPooled {
		b.data = d.data[:0]
	}
	if cap(d.line) <= maxPooled {
		b.line = d.line[:0]
	}
	buffers.Put(b)
	d.buf, d.data, d.line, d.pooled = nil, nil, nil, nil
}

// Release ends the decoder early: a caller that has read all it wants (a
// stream's own end marker, say) hands the decoder's buffers to the next
// decoder instead of leaving them to the garbage collector. The data of
// the last event is no longer valid, and every later call of Next or
// NextRaw returns io.EOF.
func (d *Decoder) Release() {
	if d.err == nil {
		d.err = io.EOF
	}
	d.release()
}

// Offset returns the byte offset of the first line of the block that
// dispatched the event Next returned last.
func (d *Decoder) Offset() int64 { return d.evOff }

// DataOffset returns the stream byte offset of byte i of the Data of the
// event Next returned last, so that a caller that finds a fault inside the
// data can name its place in the stream. An i past the data gives the
// offset just after the last data line's value; with no event yet it
// returns -1.
func (d *Decoder) DataOffset(i int) int64 {
	if len(d.last) == 0 {
		return -1
	}
	j := len(d.last) - 1
	for j > 0 && d.last[j].pos > i {
		j--
	}
	if i < d.last[j].pos {
		i = d.last[j].pos
	}
	return d.last[j].off + int64(i-d.last[j].pos)
}

// fill reads more bytes into the buffer. It returns false when no more bytes
// will come.
func (d *Decoder) fill() bool {
	if d.pos < d.end {
		return true
	}
	if d.rerr != nil {
		return false
	}
	d.pos, d.end = 0, 0
	d.cr, d.lf = -1, -1
	for empty := 0; ; empty++ {
		n, err := d.r.Read(d.buf)
		if n < 0 || n > len(d.buf) {
			d.rerr = fmt.Errorf("reader returned invalid count %d", n)
			return false
		}
		d.end = n
		if err != nil {
			d.rerr = err
		}
		if n > 0 {
			return true
		}
		if err != nil {
			return false
		}
		if empty > 100 {
			d.rerr = io.ErrNoProgress
			return false
		}
	}
}

// stripBOM drops a byte order mark at the start of the stream, even when it
// arrives split across reads.
func (d *Decoder) stripBOM() {
	d.started = true
	const bom = "\xEF\xBB\xBF"
	var got []byte
	for len(got) < len(bom) {
		if !d.fill() {
			break
		}
		c := d.buf[d.pos]
		if c != bom[len(got)] {
			break
		}
		got = append(got, c)
		d.pos++
		d.off++
	}
	if len(got) == len(bom) || len(got) == 0 {
		return
	}
	// A partial mark is ordinary text: make it the start of the first line.
	d.line = append(d.line, got...)
	d.lineStart = 0
	d.block = len(got)
	d.blockOff = 0
	d.inBlock = true
}

// readLine returns the next line without its line end. At the end of input
// it returns the unterminated rest (which may be empty) with ok false. The
// line is a view of the read buffer when it lies whole in it, else of
// d.line; either is valid until the next call.
func (d *Decoder) readLine() (line []byte, ok bool, err error) {
	if !d.started {
		d.stripBOM()
	}
	if len(d.line) == 0 {
		d.lineStart = d.off
	}
	for {
		if !d.fill() {
			if d.rerr != nil && d.rerr != io.EOF {
				return nil, false, &Error{Offset: d.off, Err: fmt.Errorf("read: %w", d.rerr)}
			}
			return d.line, false, nil
		}
		if d.sawCR {
			d.sawCR = false
			if d.buf[d.pos] == '\n' {
				d.pos++
				d.off++
				d.lineStart = d.off
				continue
			}
		}
		i := d.lineEnd() - d.pos
		if !d.inBlock {
			d.inBlock = true
			d.blockOff = d.lineStart
		}
		if d.block+i > d.max {
			return nil, false, &Error{Offset: d.blockOff, Err: fmt.Errorf("%w: block starting here exceeds %d bytes", ErrEventTooLarge, d.max)}
		}
		d.block += i
		chunk := d.buf[d.pos:d.end]
		d.pos += i
		d.off += int64(i)
		if i == len(chunk) {
			d.line = append(d.line, chunk...)
			continue
		}
		line := chunk[:i]
		if len(d.line) > 0 {
			d.line = append(d.line, line...)
			line = d.line
		}
		if chunk[i] == '\r' {
			d.sawCR = true
		}
		d.pos++
		d.off++
		return line, true, nil
	}
}

// lineEnd returns the index in buf of the first CR or LF at or after pos,
// or end when there is none. The index of the next LF found, and of the
// next CR before it (or that LF's index when there is none), are kept
// until pos passes them, so that a buffer of lines ended by LF alone, or
// by CR alone, is searched once for each byte, at bytes.IndexByte's speed.
func (d *Decoder) lineEnd() int {
	if d.lf < d.pos {
		d.lf = d.end
		if j := bytes.IndexByte(d.buf[d.pos:d.end], '\n'); j >= 0 {
			d.lf = d.pos + j
		}
	}
	if d.cr < d.pos {
		d.cr = d.lf
		if j := bytes.IndexByte(d.buf[d.pos:d.lf], '\r'); j >= 0 {
			d.cr = d.pos + j
		}
	}
	return min(d.cr, d.lf)
}

// Next returns the next dispatched event, or io.EOF after the last one. Any
// other error is an *Error and ends the stream.
func (d *Decoder) Next() (Event, error) {
	ev, err := d.NextRaw()
	if err != nil {
		return Event{}, err
	}
	return Event{Type: ev.Type, Data: string(ev.Data), ID: ev.ID, Retry: ev.Retry}, nil
}

// RawEvent is a dispatched event whose data is a view of the decoder's
// buffer instead of a string of its own.
type RawEvent struct {
	// Type, ID and Retry are as in Event.
	Type string
	ID   string
	// Data is the event's data, its data lines joined with "\n". It is
	// valid until the next call of Next or NextRaw and must not be
	// modified.
	Data  []byte
	Retry int64
}

// NextRaw is Next without the copy of the data into a string: it returns
// the same events, errors and offsets, and a stream whose events are
// decoded as they arrive costs no allocation per event.
func (d *Decoder) NextRaw() (RawEvent, error) {
	if d.err != nil {
		d.release()
		return RawEvent{}, d.err
	}
	for {
		line, ok, err := d.readLine()
		if err != nil {
			d.err = err
			d.release()
			return RawEvent{}, err
		}
		if !ok {
			d.err = io.EOF
			if d.flush {
				if len(line) > 0 {
					d.field(line)
				}
				if ev, ok := d.dispatch(); ok {
					return ev, nil
				}
			}
			d.release()
			return RawEvent{}, io.EOF
		}
		if len(line) == 0 {
			if ev, ok := d.dispatch(); ok {
				return ev, nil
			}
			continue
		}
		d.field(line)
		d.line = d.line[:0]
	}
}

// field processes one non-empty line.
func (d *Decoder) field(line []byte) {
	if line[0] == ':' {
		return
	}
	name, value := line, []byte(nil)
	if i := indexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		d.lines = append(d.lines, dataLine{pos: len(d.data), off: d.lineStart + int64(len(line)-len(value))})
		d.data = append(d.data, value...)
		d.data = append(d.data, '\n')
	case "event":
		d.typ = d.intern(value)
	case "id":
		if indexByte(value, 0) < 0 && string(value) != d.lastID {
			d.lastID = string(value)
		}
	case "retry":
		if n, ok := parseDigits(value); ok {
			d.retry = n
		}
	}
}

// dispatch ends the current block and returns its event, if it had data.
// The event's data is a view of d.data, which the next block overwrites.
func (d *Decoder) dispatch() (RawEvent, bool) {
	d.line = d.line[:0]
	off := d.blockOff
	d.block = 0
	d.inBlock = false
	if len(d.data) == 0 {
		d.typ = ""
		d.lines = d.lines[:0]
		return RawEvent{}, false
	}
	d.lines, d.last = d.last[:0], d.lines
	ev := RawEvent{Type: d.typ, Data: d.data[: len(d.data)-1 : len(d.data)-1], ID: d.lastID, Retry: d.retry}
	d.data = d.data[:0]
	d.typ = ""
	d.evOff = off
	if cap(d.data) > maxPooled {
		d.data = nil // do not keep one large event's buffer for the rest of the stream
	}
	return ev, true
}

// intern returns an event type as a string: one of the expected types, or
// the last one read when it is the same, as it is for most events of a
// typed stream.
func (d *Decoder) intern(value []byte) string {
	for _, t := range d.types {
		if string(value) == t {
			return t
		}
	}
	if string(value) != d.lastTyp {
		d.lastTyp = string(value)
	}
	return d.lastTyp
}

func indexByte(b []byte, c byte) int { return bytes.IndexByte(b, c) }

// parseDigits parses a non-empty run of ASCII digits. Values that overflow
// int64 are rejected, so such a retry field is ignored.
func parseDigits(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	return n, err == nil
}

// Encoder writes events as an event stream.
type Encoder struct {
	w      io.Writer
	lastID string
	retry  int64
	buf    []byte
}

// NewEncoder returns an Encoder writing to w.
func NewEncoder(w io.Writer) *Encoder { return &Encoder{w: w} }

// Encode writes one event. An id or type holding a line break, or an id
// holding NUL, is rejected with ErrBadField, since it would not decode back.
func (e *Encoder) Encode(ev Event) error {
	if strings.ContainsAny(ev.Type, "\r\n") {
		return fmt.Errorf("sse: encode event type %q: %w", ev.Type, ErrBadField)
	}
	if strings.ContainsAny(ev.ID, "\r\n\x00") {
		return fmt.Errorf("sse: encode id %q: %w", ev.ID, ErrBadField)
	}
	if ev.Retry < 0 {
		return fmt.Errorf("sse: encode retry %d: %w", ev.Retry, ErrBadField)
	}
	b := e.buf[:0]
	if ev.ID != e.lastID {
		if ev.ID == "" {
			b = append(b, "id\n"...)
		} else {
			b = append(b, "id: "...)
			b = append(b, ev.ID...)
			b = append(b, '\n')
		}
	}
	if ev.Retry != 0 && ev.Retry != e.retry {
		b = append(b, "retry: "...)
		b = strconv.AppendInt(b, ev.Retry, 10)
		b = append(b, '\n')
	}
	if ev.Type != "" {
		b = append(b, "event: "...)
		b = append(b, ev.Type...)
		b = append(b, '\n')
	}
	data := ev.Data
	for {
		i := strings.IndexAny(data, "\r\n")
		b = append(b, "data: "...)
		if i < 0 {
			b = append(b, data...)
			b = append(b, '\n')
			break
		}
		b = append(b, data[:i]...)
		b = append(b, '\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	b = append(b, '\n')
	e.buf = b
	if _, err := e.w.Write(b); err != nil {
		return fmt.Errorf("sse: encode: %w", err)
	}
	e.lastID = ev.ID
	if ev.Retry != 0 {
		e.retry = ev.Retry
	}
	return nil
}

// Comment writes a comment line followed by nothing else; decoders ignore
// it. Line breaks in text are rejected with ErrBadField.
func (e *Encoder) Comment(text string) error {
	if strings.ContainsAny(text, "\r\n") {
		return fmt.Errorf("sse: encode comment: %w", ErrBadField)
	}
	if _, err := io.WriteString(e.w, ":"+text+"\n"); err != nil {
		return fmt.Errorf("sse: encode comment: %w", err)
	}
	return nil
}
