package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/toolconform/conform/core"
)

func TestParseChaos(t *testing.T) {
	tests := []struct {
		in      string
		want    Chaos
		wantErr string
	}{
		{"", Chaos{}, ""},
		{"none", Chaos{}, ""},
		{"split", Chaos{Split: true, Seed: 1}, ""},
		{"split=42,crlf", Chaos{Split: true, Seed: 42, CRLF: true}, ""},
		{"ping, keepalive ,multiline", Chaos{Ping: true, KeepAlive: true, MultiLine: true}, ""},
		{"delay", Chaos{Delay: 10 * time.Millisecond}, ""},
		{"delay=5ms,disconnect", Chaos{Delay: 5 * time.Millisecond, Disconnect: true}, ""},
		{"error", Chaos{Error: true}, ""},
		{"split=x", Chaos{}, `split seed "x" is not an unsigned integer`},
		{"delay=-1s", Chaos{}, `delay "-1s" is not a duration`},
		{"delay=2m", Chaos{}, `delay "2m" is not a duration`},
		{"crlf=1", Chaos{}, "crlf takes no value"},
		{"boom", Chaos{}, `bad chaos option "boom"; known: split, crlf`},
		{"disconnect,error", Chaos{}, "choose one"},
	}
	for _, tt := range tests {
		got, err := ParseChaos(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrBadChaos) {
				t.Errorf("ParseChaos(%q) error = %v, want one containing %q wrapping ErrBadChaos", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseChaos(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseChaos(%q) (-want +got):\n%s", tt.in, diff)
		}
		// String gives back what ParseChaos reads.
		again, err := ParseChaos(got.String())
		if err != nil || again != got {
			t.Errorf("ParseChaos(%q.String() = %q) = %+v, %v; want %+v", tt.in, got.String(), again, err, got)
		}
	}
}

// sseEvent is one dispatched SSE event.
type sseEvent struct{ Event, Data string }

// parseSSE is a small reader that follows the WHATWG dispatch rules: lines
// end in CR, LF or CR LF; comments are skipped; data lines are joined with
// LF; an event with an empty data buffer is not dispatched.
func parseSSE(data []byte) []sseEvent {
	var out []sseEvent
	var ev, buf string
	has := false
	for len(data) > 0 {
		i := bytes.IndexAny(data, "\r\n")
		var line string
		if i < 0 {
			line, data = string(data), nil
		} else {
			line = string(data[:i])
			if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
				i++
			}
			data = data[i+1:]
		}
		switch {
		case line == "":
			if has {
				out = append(out, sseEvent{ev, strings.TrimSuffix(buf, "\n")})
			}
			ev, buf, has = "", "", false
		case strings.HasPrefix(line, ":"):
		default:
			field, val, _ := strings.Cut(line, ":")
			val = strings.TrimPrefix(val, " ")
			switch field {
			case "event":
				ev = val
			case "data":
				buf += val + "\n"
				has = true
			}
		}
	}
	return out
}

// nonEmpty drops events with empty data (the keep-alives).
func nonEmpty(evs []sseEvent) []sseEvent {
	var out []sseEvent
	for _, e := range evs {
		if e.Data != "" {
			out = append(out, e)
		}
	}
	return out
}

// jsonData replaces JSON data by its compact form, so that whitespace from
// joined data lines does not count.
func jsonData(evs []sseEvent) []sseEvent {
	out := make([]sseEvent, len(evs))
	for i, e := range evs {
		out[i] = e
		var b bytes.Buffer
		if json.Compact(&b, []byte(e.Data)) == nil {
			out[i].Data = b.String()
		}
	}
	return out
}

func fetch(t *testing.T, url, chaos string) ([]byte, error) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if chaos != "" {
		req.Header.Set(ChaosHeader, chaos)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	return io.ReadAll(resp.Body)
}

// TestChaosKeepsEvents checks that every framing option leaves the SSE
// events a spec reader dispatches unchanged, and that the raw bytes show
// the option at work.
func TestChaosKeepsEvents(t *testing.T) {
	_, ts := newServer(t, Options{})
	for _, name := range []string{
		"openai-chat/streaming/B05-multibyte-utf8-arguments",
		"anthropic/streaming/A19-interleaved-content-blocks",
		"openai-responses/streaming/A05-interleaved-function-call-items",
		"cohere/streaming/A05-interleaved-tool-call-deltas",
	} {
		url := ts.URL + ScenarioPrefix + name + "/v1/chat/completions"
		switch strings.Split(name, "/")[0] {
		case "anthropic":
			url = ts.URL + ScenarioPrefix + name + "/v1/messages"
		case "openai-responses":
			url = ts.URL + ScenarioPrefix + name + "/v1/responses"
		case "cohere":
			url = ts.URL + ScenarioPrefix + name + "/v2/chat"
		}
		plain, err := fetch(t, url, "")
		if err != nil {
			t.Fatal(err)
		}
		want := parseSSE(plain)
		if len(want) < 3 {
			t.Fatalf("%s: %d events; want a real stream", name, len(want))
		}
		for _, c := range []struct {
			chaos string
			shows func([]byte) bool
		}{
			{"split=3", func(b []byte) bool { return bytes.Equal(b, plain) }},
			{"crlf", func(b []byte) bool { return bytes.Count(b, []byte("\r\n")) == bytes.Count(plain, []byte("\n")) }},
			{"ping", func(b []byte) bool { return bytes.Count(b, []byte(": ping\n\n")) == len(want) }},
			{"keepalive", func(b []byte) bool { return bytes.Count(b, []byte("data:\n\n")) == len(want) }},
			{"multiline", func(b []byte) bool { return bytes.Count(b, []byte("data: ")) > len(want) }},
			{"delay=1ms", func(b []byte) bool { return bytes.Equal(b, plain) }},
			{"split=9,crlf,ping,keepalive,multiline", func(b []byte) bool { return bytes.Contains(b, []byte("\r\n: ping\r\n")) }},
		} {
			got, err := fetch(t, url, c.chaos)
			if err != nil {
				t.Errorf("%s chaos %s: %v", name, c.chaos, err)
				continue
			}
			if !c.shows(got) {
				t.Errorf("%s chaos %s: the bytes do not show the option:\n%q", name, c.chaos, got)
			}
			gotEv := nonEmpty(parseSSE(got))
			if diff := cmp.Diff(jsonData(want), jsonData(gotEv)); diff != "" {
				t.Errorf("%s chaos %s: events changed (-want +got):\n%s", name, c.chaos, diff)
			}
		}
	}
}

// TestChaosEndsStream checks disconnect and error: the client sees the
// stream end early, and the verdict counts only the calls that were
// complete in what was sent.
func TestChaosEndsStream(t *testing.T) {
	const name = "openai-chat/streaming/A05-round-robin-interleaving"
	s, ts := newServer(t, Options{})
	url := ts.URL + ScenarioPrefix + name + "/v1/chat/completions"

	_, err := fetch(t, url, "disconnect")
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("disconnect: read error %v, want unexpected EOF", err)
	}
	v, _ := s.Verdict(name)
	if len(v.Calls) != 0 || len(v.Incomplete) == 0 {
		t.Errorf("disconnect: verdict calls %d incomplete %d; want the interleaved calls all cut off", len(v.Calls), len(v.Incomplete))
	}

	body, err := fetch(t, url, "error")
	if err != nil {
		t.Fatalf("error: %v", err)
	}
	c := &client{protocol: "openai-chat"}
	a, _ := adapterFor(c.protocol, false)
	resp, err := core.Collect(a.DecodeStream(bytes.NewReader(body)))
	var pe *core.ProviderError
	if !errors.As(err, &pe) && (resp == nil || resp.Error == nil) {
		t.Errorf("error: collecting the stream gave %v; want the injected provider error", err)
	}
	if len(resp.Calls()) != 0 {
		t.Errorf("error: %d complete calls after an injected error mid-interleaving; want 0", len(resp.Calls()))
	}

	// A non-streamed request with error chaos gets a 500.
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set(ChaosHeader, "error")
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 500 {
		t.Errorf("non-streamed error chaos: status %d, want 500", r.StatusCode)
	}
}

// TestChaosNotes checks that an SSE-only option asked of another framing
// is noted in the verdict and the response, not silently dropped.
func TestChaosNotes(t *testing.T) {
	const name = "ollama/streaming/D07-two-identical-calls"
	s, ts := newServer(t, Options{})
	req, _ := http.NewRequest("POST", ts.URL+ScenarioPrefix+name+"/api/chat", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set(ChaosHeader, "crlf,split=2")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if note := resp.Header.Get("X-Conform-Note"); !strings.Contains(note, "crlf not applicable to application/x-ndjson") {
		t.Errorf("X-Conform-Note = %q", note)
	}
	v, _ := s.Verdict(name)
	if len(v.Notes) != 1 {
		t.Errorf("verdict notes = %q; want the one note", v.Notes)
	}
}

func TestSplitPiecesProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		data := []byte(rapid.String().Draw(t, "data") + "é\r\n" + rapid.String().Draw(t, "more"))
		seed := rapid.Uint64().Draw(t, "seed")
		pieces := splitPieces(data, seed)
		if !bytes.Equal(bytes.Join(pieces, nil), data) {
			t.Fatalf("pieces do not join back")
		}
		// The first CR LF and the first multi-byte character are always cut.
		cr := bytes.Index(data, []byte("\r\n"))
		mb := bytes.IndexFunc(data, func(r rune) bool { return r >= utf8.RuneSelf })
		off, cutCR, cutMB := 0, false, false
		for _, p := range pieces[:len(pieces)-1] {
			off += len(p)
			cutCR = cutCR || off == cr+1
			cutMB = cutMB || off == mb+1
			if len(p) == 0 || len(p) > 16 {
				t.Fatalf("piece of %d bytes", len(p))
			}
		}
		if !cutCR || !cutMB {
			t.Fatalf("cut between CR and LF %v, inside the first multi-byte character %v", cutCR, cutMB)
		}
	})
}

func TestSplitJSONLinesProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := map[string]any{
			"s": rapid.String().Draw(t, "s"),
			"n": rapid.IntRange(-1000, 1000).Draw(t, "n"),
			"l": rapid.SliceOf(rapid.String()).Draw(t, "l"),
		}
		data, _ := json.Marshal(v)
		joined := strings.Join(splitJSONLines(string(data)), "\n")
		var got any
		if err := json.Unmarshal([]byte(joined), &got); err != nil {
			t.Fatalf("joined lines are not JSON: %v\n%s", err, joined)
		}
		var want any
		json.Unmarshal(data, &want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("value changed (-want +got):\n%s", diff)
		}
	})
}

func TestReframeSSEProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		payload, _ := json.Marshal(map[string]any{"t": rapid.String().Draw(t, "t"), "k": rapid.SliceOf(rapid.Int()).Draw(t, "k")})
		event := []byte("event: x\ndata: " + string(payload) + "\n\n")
		c := Chaos{CRLF: rapid.Bool().Draw(t, "crlf"), Ping: rapid.Bool().Draw(t, "ping"), KeepAlive: rapid.Bool().Draw(t, "keepalive"), MultiLine: rapid.Bool().Draw(t, "multiline")}
		got := jsonData(nonEmpty(parseSSE(reframeSSE(c, event))))
		want := jsonData(parseSSE(event))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("chaos %s changed the event (-want +got):\n%s", c, diff)
		}
	})
}
