package bedrock

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/toolconform/conform/core"
)

const (
	preludeLen = 12 // total length, headers length, prelude CRC
	minFrame   = 16 // prelude and message CRC
	// firstBuffer is the size of the frame reader's first buffer, and of
	// its reads while frames fit in it.
	firstBuffer = 2 << 10
)

// The header names a frame is read by.
const (
	hdrMessageType   = ":message-type"
	hdrEventType     = ":event-type"
	hdrExceptionType = ":exception-type"
	hdrErrorCode     = ":error-code"
	hdrErrorMessage  = ":error-message"
)

// frame is one decoded event-stream frame: the string headers the decoder
// reads, each empty when absent or not a string, and the payload. On the
// fast path they are views of the frame reader's buffer, valid until the
// next frame.
type frame struct {
	off           int64
	messageType   []byte
	eventType     []byte
	exceptionType []byte
	errorCode     []byte
	errorMessage  []byte
	payload       []byte
}

// frameReader pulls one event-stream frame at a time from r, keeping the
// byte offset of each frame so that errors can name it. It reads ahead
// into one reused buffer, as much as each read brings, and takes frames
// from it: the prelude first, to bound the frame size before the frame is
// read whole. A frame whose headers are well formed and whose message CRC
// matches is read in place (parse); any other frame goes to the AWS
// decoder, the general path, which checks both CRCs, parses the headers
// and gives the error of a broken frame.
type frameReader struct {
	r   io.Reader
	max int
	// buf[lo:hi] holds the bytes read and not yet taken; off is the
	// stream offset of buf[lo]; rerr is the error of the last read, kept
	// until the bytes before it are taken.
	buf    []byte
	lo, hi int
	off    int64
	rerr   error
	// first is buf's first storage, which ordinary frames never outgrow.
	first   [firstBuffer]byte
	payload []byte
	dec     *eventstream.Decoder
	// general sends every frame to the AWS decoder, for tests that
	// compare the two paths; hits counts the frames parse read.
	general bool
	hits    int
}

// fill reads until at least n bytes are buffered (n at most the frame size
// bound) or a read fails, and returns how many are buffered and, when
// fewer than n, the read's error.
func (fr *frameReader) fill(n int) (int, error) {
	if fr.buf == nil {
		fr.buf = fr.first[:]
	}
	if fr.hi-fr.lo >= n {
		return fr.hi - fr.lo, nil
	}
	if len(fr.buf)-fr.lo < n {
		// Make room: move the bytes left to the front, in a larger
		// buffer if n does not fit.
		buf := fr.buf
		if len(buf) < n {
			buf = make([]byte, max(n, min(2*len(buf), fr.max)))
		}
		fr.hi = copy(buf, fr.buf[fr.lo:fr.hi])
		fr.buf, fr.lo = buf, 0
	}
	for fr.hi-fr.lo < n && fr.rerr == nil {
		m, err := fr.r.Read(fr.buf[fr.hi:])
		fr.hi += m
		fr.rerr = err
	}
	if fr.hi-fr.lo >= n {
		return fr.hi - fr.lo, nil
	}
	return fr.hi - fr.lo, fr.rerr
}

// take removes the n bytes at the front of the buffer and returns them,
// valid until the next fill.
func (fr *frameReader) take(n int) []byte {
	b := fr.buf[fr.lo : fr.lo+n : fr.lo+n]
	fr.lo += n
	fr.off += int64(n)
	return b
}

// next reads the next frame into f. It returns io.EOF when the stream ends
// cleanly between frames.
func (fr *frameReader) next(f *frame) error {
	start := fr.off
	*f = frame{off: start}
	n, err := fr.fill(preludeLen)
	switch {
	case err == nil:
	case n == 0 && err == io.EOF:
		return io.EOF
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return streamError(start, "", fmt.Errorf("%w inside a frame: after %d of %d prelude bytes", core.ErrTruncated, n, preludeLen))
	default:
		return streamError(start, "", err)
	}
	prelude := fr.buf[fr.lo : fr.lo+preludeLen]
	total := binary.BigEndian.Uint32(prelude[0:4])
	headers := binary.BigEndian.Uint32(prelude[4:8])
	lengthsCRC := crc32.ChecksumIEEE(prelude[:8])
	if got, want := lengthsCRC, binary.BigEndian.Uint32(prelude[8:12]); got != want {
		return streamError(start, "", fmt.Errorf("%w frame: %w: prelude crc is %08x, bytes give %08x", core.ErrMalformed, ErrChecksum, want, got))
	}
	if total < minFrame {
		return streamError(start, "", fmt.Errorf("%w frame: total length %d is below the minimum %d", core.ErrMalformed, total, minFrame))
	}
	if int64(total) > int64(fr.max) {
		return streamError(start, "", fmt.Errorf("frame %w: %d bytes, limit %d", core.ErrTooLarge, total, fr.max))
	}
	if headers > total-minFrame {
		return streamError(start, "", fmt.Errorf("%w frame: headers length %d does not fit in frame length %d", core.ErrMalformed, headers, total))
	}
	n, err = fr.fill(int(total))
	switch {
	case err == nil:
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return streamError(start, "", fmt.Errorf("%w inside a frame: after %d of %d frame bytes", core.ErrTruncated, n, total))
	default:
		return streamError(start, "", err)
	}
	buf := fr.take(int(total))
	if !fr.general && parse(buf, int(headers), lengthsCRC, f) {
		fr.hits++
		return nil
	}
	*f = frame{off: start}
	return fr.decodeGeneral(buf, f)
}

// parse reads a frame whose prelude has been checked in place: its string
// headers and payload become views of buf. It reports false, having read
// nothing that counts, when the message CRC does not match or a header is
// not one the AWS decoder reads whole (a name or value that runs past the
// headers, an unknown value type), so that the general path gives the
// frame's error. The AWS decoder keeps the last of repeated headers, as
// parse does. lengthsCRC is the CRC-32 of the frame's first 8 bytes, which
// the message CRC continues over the rest (crc32.Update).
func parse(buf []byte, headersLen int, lengthsCRC uint32, f *frame) bool {
	end := len(buf) - 4
	if crc32.Update(lengthsCRC, crc32.IEEETable, buf[8:end]) != binary.BigEndian.Uint32(buf[end:]) {
		return false
	}
	h := buf[preludeLen : preludeLen+headersLen]
	for i := 0; i < len(h); {
		nameLen := int(h[i])
		i++
		if i+nameLen >= len(h) { // the name and the value's type byte
			return false
		}
		name := h[i : i+nameLen]
		i += nameLen
		typ := h[i]
		i++
		var value []byte
		switch typ {
		case 0, 1: // true, false
		case 2: // byte
			i++
		case 3: // short
			i += 2
		case 4: // integer
			i += 4
		case 5, 8: // long, timestamp
			i += 8
		case 9: // uuid
			i += 16
		case 6, 7: // bytes, string
			if i+2 > len(h) {
				return false
			}
			n := int(binary.BigEndian.Uint16(h[i:]))
			i += 2
			if i+n > len(h) {
				return false
			}
			if typ == 7 {
				value = h[i : i+n : i+n]
			}
			i += n
		default:
			return false
		}
		if i > len(h) {
			return false
		}
		switch string(name) {
		case hdrMessageType:
			f.messageType = value
		case hdrEventType:
			f.eventType = value
		case hdrExceptionType:
			f.exceptionType = value
		case hdrErrorCode:
			f.errorCode = value
		case hdrErrorMessage:
			f.errorMessage = value
		}
	}
	f.payload = buf[preludeLen+headersLen : end : end]
	return true
}

// decodeGeneral decodes a frame with the AWS decoder, which checks both
// CRCs and parses the headers.
func (fr *frameReader) decodeGeneral(buf []byte, f *frame) error {
	if fr.dec == nil {
		fr.dec = eventstream.NewDecoder()
	}
	msg, err := fr.dec.Decode(bytes.NewReader(buf), fr.payload[:0])
	if err != nil {
		var ce eventstream.ChecksumError
		if errors.As(err, &ce) {
			return streamError(f.off, "", fmt.Errorf("%w frame: %w: message crc does not match", core.ErrMalformed, ErrChecksum))
		}
		return streamError(f.off, "", fmt.Errorf("%w frame: %v", core.ErrMalformed, err))
	}
	if cap(msg.Payload) > cap(fr.payload) {
		fr.payload = msg.Payload[:0]
	}
	f.messageType = headerBytes(msg, hdrMessageType)
	f.eventType = headerBytes(msg, hdrEventType)
	f.exceptionType = headerBytes(msg, hdrExceptionType)
	f.errorCode = headerBytes(msg, hdrErrorCode)
	f.errorMessage = headerBytes(msg, hdrErrorMessage)
	f.payload = msg.Payload
	return nil
}

// headerBytes returns a string header's value, or nil when it is absent or
// not a string.
func headerBytes(m eventstream.Message, name string) []byte {
	if v, ok := m.Headers.Get(name).(eventstream.StringValue); ok {
		return []byte(v)
	}
	return nil
}

// writeFrame writes one event frame with the given headers and payload.
func writeFrame(enc *eventstream.Encoder, w io.Writer, headers eventstream.Headers, payload []byte) error {
	return enc.Encode(w, eventstream.Message{Headers: headers, Payload: payload})
}

func eventHeaders(eventType string) eventstream.Headers {
	return eventstream.Headers{
		{Name: ":event-type", Value: eventstream.StringValue(eventType)},
		{Name: ":content-type", Value: eventstream.StringValue("application/json")},
		{Name: ":message-type", Value: eventstream.StringValue("event")},
	}
}

func exceptionHeaders(exceptionType string) eventstream.Headers {
	return eventstream.Headers{
		{Name: ":exception-type", Value: eventstream.StringValue(exceptionType)},
		{Name: ":content-type", Value: eventstream.StringValue("application/json")},
		{Name: ":message-type", Value: eventstream.StringValue("exception")},
	}
}
