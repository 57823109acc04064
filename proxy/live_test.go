package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
)

// TestStreamsAsItGoes sends a streamed request through the proxy to an
// upstream that streams 20 text chunks over two seconds: the client reads
// the first chunk before the upstream has sent its last, and reads 20
// chunks, not one merged text. Only the order of events is checked, never
// a speed.
func TestStreamsAsItGoes(t *testing.T) {
	var mu sync.Mutex
	var lastSent time.Time
	slow := slowChat(20, 100*time.Millisecond, false)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		slow(w, r)
		mu.Lock()
		lastSent = time.Now()
		mu.Unlock()
	}))
	defer up.Close()
	for _, front := range []string{"openai-chat", "mistral", "anthropic"} {
		t.Run(front, func(t *testing.T) {
			px, err := New(Options{Front: front, Upstream: "openai-chat", UpstreamURL: up.URL})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(px)
			defer srv.Close()
			ep, _ := providers.HTTP(front)
			resp, err := http.Post(ep.URL(srv.URL, ep.DefaultModel, true), ep.ContentType, bytes.NewReader(frontRequest(t, front, true)))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var all bytes.Buffer
			var firstText time.Time
			texts := 0
			sc := bufio.NewScanner(io.TeeReader(resp.Body, &all))
			for sc.Scan() {
				if strings.HasPrefix(sc.Text(), "data:") && strings.Contains(sc.Text(), `part `) {
					texts++
					if firstText.IsZero() {
						firstText = time.Now()
					}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if firstText.IsZero() || !firstText.Before(lastSent) {
				t.Errorf("the first text reached the client at %v, not before the upstream sent its last chunk at %v", firstText, lastSent)
			}
			if texts != 20 {
				t.Errorf("%d text chunks, want 20, one per upstream chunk:\n%s", texts, all.Bytes())
			}
			a, _ := providers.Lookup(front)
			r, err := core.Collect(a.DecodeStream(&all))
			if err != nil || r.Finish != core.FinishStop {
				t.Errorf("finish %q, error %v", r.Finish, err)
			}
		})
	}
}

// TestLongTextIsNeverCut streams 20 MiB of text, past Collect's 16 MiB
// text limit: a front the proxy streams to gets all of it and the finish;
// a front it collects for gets its protocol's error, never a cut text
// with a clean finish.
func TestLongTextIsNeverCut(t *testing.T) {
	const total = 20 << 20
	piece := strings.Repeat("x", 64<<10)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for range total / len(piece) {
			fmt.Fprintf(w, "data: {\"id\":\"r\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", piece)
		}
		io.WriteString(w, "data: {\"id\":\"r\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer up.Close()
	for _, front := range providers.Names() {
		t.Run(front, func(t *testing.T) {
			resp, got := post(t, front, "openai-chat", up.URL, true)
			a, _ := providers.Lookup(front)
			_, live := a.(liveEncoder)
			if resp.StatusCode != http.StatusOK {
				r, err := a.DecodeResponse(got)
				if live || err != nil || r.Error == nil {
					t.Fatalf("status %d, body %.300s (live front %v)", resp.StatusCode, got, live)
				}
				return
			}
			r, err := core.Collect(a.DecodeStream(bytes.NewReader(got)), core.WithLimits(core.Limits{MaxTextBytes: 2 * total}))
			switch {
			case r.Error != nil:
				if live {
					t.Errorf("a front the proxy streams to got an error: %v", r.Error)
				}
			case len(r.Message.Text()) != total || r.Finish != core.FinishStop:
				t.Errorf("%d bytes of text and finish %q without an error (%v); want all %d and stop", len(r.Message.Text()), r.Finish, err, total)
			}
		})
	}
}

// TestOneBlockAtATime streams two calls whose chunks the upstream
// interleaves (A05), with text between them, to the Anthropic front,
// which writes one content block at a time: each block is stopped before
// the next starts, and both calls arrive whole.
func TestOneBlockAtATime(t *testing.T) {
	call := func(i int, first bool, args string) string {
		head := ""
		if first {
			head = fmt.Sprintf(`"id":"call_%d","type":"function","function":{"name":"weather","arguments":%q}`, i, args)
		} else {
			head = fmt.Sprintf(`"function":{"arguments":%q}`, args)
		}
		return fmt.Sprintf("data: {\"id\":\"r\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":%d,%s}]}}]}\n\n", i, head)
	}
	body := chatText("looking ") + call(0, true, `{"city":`) + call(1, true, `{"city":`) + chatText("up ") +
		call(0, false, `"Oslo"}`) + call(1, false, `"Lima"}`) + chatChunk(chatToolFinish) + "data: [DONE]\n\n"
	_, got := roundTrip(t, "anthropic", true, body)
	open := -1
	for _, line := range strings.Split(string(got), "\n") {
		var ev struct {
			Type  string `json:"type"`
			Index int    `json:"index"`
		}
		if !strings.HasPrefix(line, "data: ") || json.Unmarshal([]byte(line[6:]), &ev) != nil {
			continue
		}
		switch ev.Type {
		case "content_block_start":
			if open >= 0 {
				t.Fatalf("block %d started while block %d is open:\n%s", ev.Index, open, got)
			}
			open = ev.Index
		case "content_block_delta":
			if ev.Index != open {
				t.Fatalf("a delta for block %d while block %d is open:\n%s", ev.Index, open, got)
			}
		case "content_block_stop":
			open = -1
		}
	}
	a, _ := providers.Lookup("anthropic")
	r, err := core.Collect(a.DecodeStream(bytes.NewReader(got)))
	calls := r.Calls()
	if err != nil || len(calls) != 2 || string(calls[0].Arguments) != `{"city":"Oslo"}` || string(calls[1].Arguments) != `{"city":"Lima"}` {
		t.Fatalf("calls %+v, error %v:\n%s", calls, err, got)
	}
}
