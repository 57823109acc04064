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
)

// frameReader pulls one event-stream frame at a time from r, keeping the
// byte offset of each frame so that errors can name it. It reads the
// prelude itself to bound the frame size before reading the frame, then
// hands the whole frame to the AWS decoder, which checks both CRCs and
// parses the headers.
type frameReader struct {
	r       io.Reader
	off     int64
	max     int
	buf     []byte
	payload []byte
	dec     *eventstream.Decoder
}

func newFrameReader(r io.Reader, max int) *frameReader {
	return &frameReader{r: r, max: max, dec: eventstream.NewDecoder()}
}

// next returns the next frame and the offset of its first byte. It returns
// io.EOF when the stream ends cleanly between frames.
func (fr *frameReader) next() (eventstream.Message, int64, error) {
	start := fr.off
	var prelude [preludeLen]byte
	n, err := io.ReadFull(fr.r, prelude[:])
	fr.off += int64(n)
	switch {
	case err == io.EOF:
		return eventstream.Message{}, start, io.EOF
	case err == io.ErrUnexpectedEOF:
		return eventstream.Message{}, start, streamError(start, "", fmt.Errorf("%w inside a frame: after %d of %d prelude bytes", core.ErrTruncated, n, preludeLen))
	case err != nil:
		return eventstream.Message{}, start, streamError(start, "", err)
	}
	total := binary.BigEndian.Uint32(prelude[0:4])
	headers := binary.BigEndian.Uint32(prelude[4:8])
	if got, want := crc32.ChecksumIEEE(prelude[:8]), binary.BigEndian.Uint32(prelude[8:12]); got != want {
		return eventstream.Message{}, start, streamError(start, "", fmt.Errorf("%w: prelude crc is %08x, bytes give %08x", ErrChecksum, want, got))
	}
	if total < minFrame {
		return eventstream.Message{}, start, streamError(start, "", fmt.Errorf("%w frame: total length %d is below the minimum %d", core.ErrMalformed, total, minFrame))
	}
	if int64(total) > int64(fr.max) {
		return eventstream.Message{}, start, streamError(start, "", fmt.Errorf("frame %w: %d bytes, limit %d", core.ErrTooLarge, total, fr.max))
	}
	if headers > total-minFrame {
		return eventstream.Message{}, start, streamError(start, "", fmt.Errorf("%w frame: headers length %d does not fit in frame length %d", core.ErrMalformed, headers, total))
	}
	if cap(fr.buf) < int(total) {
		fr.buf = make([]byte, total)
	}
	frame := fr.buf[:total]
	copy(frame, prelude[:])
	n, err = io.ReadFull(fr.r, frame[preludeLen:])
	fr.off += int64(n)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return eventstream.Message{}, start, streamError(start, "", fmt.Errorf("%w inside a frame: after %d of %d frame bytes", core.ErrTruncated, preludeLen+n, total))
	}
	if err != nil {
		return eventstream.Message{}, start, streamError(start, "", err)
	}
	msg, err := fr.dec.Decode(bytes.NewReader(frame), fr.payload[:0])
	if err != nil {
		var ce eventstream.ChecksumError
		if errors.As(err, &ce) {
			return eventstream.Message{}, start, streamError(start, "", fmt.Errorf("%w: message crc does not match", ErrChecksum))
		}
		return eventstream.Message{}, start, streamError(start, "", fmt.Errorf("%w frame: %v", core.ErrMalformed, err))
	}
	if cap(msg.Payload) > cap(fr.payload) {
		fr.payload = msg.Payload[:0]
	}
	return msg, start, nil
}

// headerString returns a string header's value, or "" when it is absent or
// not a string.
func headerString(m eventstream.Message, name string) string {
	if v, ok := m.Headers.Get(name).(eventstream.StringValue); ok {
		return string(v)
	}
	return ""
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
