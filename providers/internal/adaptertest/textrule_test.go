package adaptertest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/providers/internal/adaptertest"
	"github.com/toolconform/conform/providers/internal/wire"
)

const textRuleMark = "QQMARKQQ"

// textRuleBodies returns a response body and a stream of adapter a holding
// one call whose arguments are args, with every textRuleMark in the wire
// bytes replaced by raw.
func textRuleBodies(t *testing.T, a core.Adapter, args, raw string) (response, stream []byte) {
	t.Helper()
	call := core.Call{ID: "call_1", Name: "f", Arguments: json.RawMessage(args)}
	resp := &core.Response{Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.CallPart(call)}}, Finish: core.FinishToolCalls}
	body, err := a.EncodeResponse(resp)
	if err != nil {
		t.Fatal(err)
	}
	events := []core.Event{
		{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: "call_1", Name: "f", Start: true}},
		{Kind: core.EventCallDelta, Chunk: &core.Chunk{ID: "call_1", ArgsDelta: args}},
		{Kind: core.EventCallEnd, Chunk: &core.Chunk{ID: "call_1", Done: true}},
		{Kind: core.EventFinish, Finish: core.FinishToolCalls},
	}
	var s bytes.Buffer
	if err := a.EncodeStream(&s, events); err != nil {
		t.Fatal(err)
	}
	replace := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte(textRuleMark), []byte(raw)) }
	if a.Name() != "bedrock" {
		return replace(body), replace(s.Bytes())
	}
	// AWS event-stream frames carry lengths and checksums: patch each
	// payload and frame it again.
	var out bytes.Buffer
	dec, enc := eventstream.NewDecoder(), eventstream.NewEncoder()
	r := bytes.NewReader(s.Bytes())
	for r.Len() > 0 {
		m, err := dec.Decode(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		m.Payload = replace(m.Payload)
		if err := enc.Encode(&out, m); err != nil {
			t.Fatal(err)
		}
	}
	return replace(body), out.Bytes()
}

// TestOneTextRule decodes, with every built-in adapter, a response and a
// stream holding one call whose arguments carry a raw invalid UTF-8 byte, a
// raw NUL, an escaped \u0000, or valid multi-byte characters, the stream
// read whole and one byte at a time. The rule is the same everywhere:
// invalid UTF-8 is refused with core.ErrInvalidUTF8 (RFC 8259 §8.1), never
// replaced by U+FFFD nor passed on raw; a raw NUL, a control character
// JSON forbids in a string, is malformed JSON; \u0000 is valid JSON and
// decodes to U+0000. A refused call is never complete, and the error names
// the bad byte (or the event or frame that holds it).
func TestOneTextRule(t *testing.T) {
	tests := []struct {
		name, args, raw string
		invalidUTF8     bool   // refused with core.ErrInvalidUTF8
		refused         bool   // refused, as malformed JSON or invalid UTF-8
		want            string // the string value of "s" in the decoded arguments
	}{
		{"invalid UTF-8", `{"s":"a` + textRuleMark + `b"}`, "\xff", true, true, ""},
		{"invalid UTF-8, a cut sequence", `{"s":"a` + textRuleMark + `b"}`, "\xe2\x82", true, true, ""},
		{"invalid UTF-8, an encoded surrogate", `{"s":"a` + textRuleMark + `b"}`, "\xed\xa0\x80", true, true, ""},
		{"raw NUL", `{"s":"a` + textRuleMark + `b"}`, "\x00", false, true, ""},
		{"escaped NUL", `{"s":"a\u0000b"}`, "", false, false, "a\x00b"},
		{"multi-byte characters", `{"s":"a` + textRuleMark + `b"}`, "é€😀", false, false, "aé€😀b"},
	}
	for _, a := range providers.All() {
		for _, tt := range tests {
			t.Run(a.Name()+"/"+tt.name, func(t *testing.T) {
				response, stream := textRuleBodies(t, a, tt.args, tt.raw)
				bad := int64(-1)
				if tt.refused {
					bad = badByte(response, tt.raw)
				}
				resp, err := a.DecodeResponse(response)
				checkTextRule(t, "response", resp, err, tt.invalidUTF8, tt.refused, tt.want)
				if tt.refused {
					if off, ok := offsetOf(err); !ok || off != bad {
						t.Errorf("response: error %v names byte %d (%v), want %d", err, off, ok, bad)
					}
				}
				for _, read := range []struct {
					name string
					r    io.Reader
				}{
					{"stream read whole", bytes.NewReader(stream)},
					{"stream read one byte at a time", adaptertest.SplitReader(stream)},
				} {
					resp, err := core.Collect(a.DecodeStream(read.r))
					checkTextRule(t, read.name, resp, err, tt.invalidUTF8, tt.refused, tt.want)
					if !tt.refused {
						continue
					}
					// Invalid UTF-8 in a stream is named by the
					// event and field that hold it and the byte of
					// the field; malformed JSON by
					// the bad byte or the start of its event or
					// frame.
					if tt.invalidUTF8 {
						var de *wire.DecodeError
						if !errors.As(err, &de) || !strings.Contains(de.Path, "arguments") || !strings.Contains(err.Error(), ": byte ") {
							t.Errorf("%s: error %v does not name the call's arguments and the byte in them", read.name, err)
						}
						continue
					}
					at := badByte(stream, tt.raw)
					if off, ok := offsetOf(err); !ok || off > at {
						t.Errorf("%s: error %v names byte %d (%v), want the bad byte %d or the start of its event", read.name, err, off, ok, at)
					}
				}
			})
		}
	}
}

// badByte returns the offset in body of raw, the bad bytes placed between
// "a" and "b" in the arguments.
func badByte(body []byte, raw string) int64 {
	return int64(bytes.Index(body, []byte("a"+raw+"b")) + 1)
}

// checkTextRule checks one decoding against the rule TestOneTextRule states.
func checkTextRule(t *testing.T, what string, resp *core.Response, err error, invalidUTF8, refused bool, want string) {
	t.Helper()
	if !refused {
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		calls := resp.Calls()
		if len(calls) != 1 {
			t.Fatalf("%s: %d calls, want 1", what, len(calls))
		}
		var args struct{ S string }
		if err := json.Unmarshal(calls[0].Arguments, &args); err != nil || args.S != want {
			t.Errorf("%s: arguments %q (%v), want s = %q", what, calls[0].Arguments, err, want)
		}
		return
	}
	if err == nil {
		t.Fatalf("%s: decoded, want an error", what)
	}
	if errors.Is(err, core.ErrInvalidUTF8) != invalidUTF8 {
		t.Errorf("%s: error %v; wrapping core.ErrInvalidUTF8: %v, want %v", what, err, !invalidUTF8, invalidUTF8)
	}
	if resp != nil && len(resp.Calls()) > 0 {
		t.Errorf("%s: %d complete calls from a refused body, arguments %q", what, len(resp.Calls()), resp.Calls()[0].Arguments)
	}
}

// TestTextRuleInStreamText checks the rule for streamed text: with every
// built-in adapter, a stream whose text holds bytes that are not UTF-8,
// read whole and one byte at a time, is refused with core.ErrInvalidUTF8,
// never decoded with U+FFFD in their place.
func TestTextRuleInStreamText(t *testing.T) {
	for _, a := range providers.All() {
		for _, raw := range []string{"\xff", "\xe2\x82", "\xed\xa0\x80"} {
			t.Run(a.Name(), func(t *testing.T) {
				var s bytes.Buffer
				events := []core.Event{{Kind: core.EventText, Text: "a" + textRuleMark + "b"}, {Kind: core.EventFinish, Finish: core.FinishStop}}
				if err := a.EncodeStream(&s, events); err != nil {
					t.Fatal(err)
				}
				stream := bytes.ReplaceAll(s.Bytes(), []byte(textRuleMark), []byte(raw))
				if a.Name() == "bedrock" {
					stream = reframe(t, s.Bytes(), raw)
				}
				for name, r := range map[string]io.Reader{"whole": bytes.NewReader(stream), "one byte at a time": adaptertest.SplitReader(stream)} {
					resp, err := core.Collect(a.DecodeStream(r))
					if !errors.Is(err, core.ErrInvalidUTF8) {
						t.Errorf("%q read %s: error %v, want core.ErrInvalidUTF8 (text %q)", raw, name, err, resp.Text())
					}
				}
			})
		}
	}
}

// reframe returns an AWS event stream with every textRuleMark in its
// payloads replaced by raw, each frame encoded again.
func reframe(t *testing.T, frames []byte, raw string) []byte {
	t.Helper()
	var out bytes.Buffer
	dec, enc := eventstream.NewDecoder(), eventstream.NewEncoder()
	r := bytes.NewReader(frames)
	for r.Len() > 0 {
		m, err := dec.Decode(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		m.Payload = bytes.ReplaceAll(m.Payload, []byte(textRuleMark), []byte(raw))
		if err := enc.Encode(&out, m); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}
