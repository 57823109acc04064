// Command faultygw is a deliberately faulty Anthropic Messages gateway for
// the tests of package gateway: it passes requests to an Anthropic upstream
// unchanged and rewrites the stream with one fault.
//
//	faultygw --addr 127.0.0.1:PORT --upstream-url URL --fault drop-second-fragment|early-stop|none|hang|drop-error-flag [--die-after N] [--dial HOST:PORT]
//
// drop-second-fragment drops the second input_json_delta of every tool_use
// block; early-stop closes every tool_use block right after its start,
// before its input_json_delta events; none passes streams unchanged; hang
// never answers a request; drop-error-flag removes "is_error":true from
// the tool results of every request it passes on. --die-after makes it exit with status 3 when
// request N+1 comes, after a log line, as a gateway that crashes would.
// --dial makes it try a TCP connection to HOST:PORT at start and log the
// outcome, as a gateway that phones home would.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/toolconform/conform/sse"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	upstream := flag.String("upstream-url", "", "upstream base URL")
	fault := flag.String("fault", "", "drop-second-fragment or early-stop")
	dial := flag.String("dial", "", "try a TCP connection to HOST:PORT at start")
	dieAfter := flag.Int("die-after", 0, "exit with status 3 when request N+1 comes (0: never)")
	flag.Parse()
	if *dial != "" {
		if c, err := net.DialTimeout("tcp", *dial, 2*time.Second); err != nil {
			log.Printf("faultygw: %v", err)
		} else {
			c.Close()
			log.Printf("faultygw: connected to %s", *dial)
		}
	}
	if *fault != "drop-second-fragment" && *fault != "early-stop" && *fault != "none" && *fault != "hang" && *fault != "drop-error-flag" {
		fmt.Fprintf(os.Stderr, "faultygw: unknown fault %q\n", *fault)
		os.Exit(2)
	}
	http.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	var mu sync.Mutex
	requests := 0
	http.HandleFunc("/v1/messages", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		if *dieAfter > 0 && requests > *dieAfter {
			log.Printf("faultygw: panic: dying at request %d", requests)
			os.Exit(3)
		}
		mu.Unlock()
		if *fault == "hang" {
			<-r.Context().Done()
			return
		}
		body, _ := io.ReadAll(r.Body)
		if *fault == "drop-error-flag" {
			body = bytes.ReplaceAll(body, []byte(`,"is_error":true`), nil)
		}
		req, _ := http.NewRequest(http.MethodPost, *upstream+"/v1/messages", bytes.NewReader(body))
		for _, h := range []string{"Content-Type", "Anthropic-Version", "X-Api-Key"} {
			req.Header.Set(h, r.Header.Get(h))
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		if resp.Header.Get("Content-Type") != "text/event-stream" {
			io.Copy(w, resp.Body)
			return
		}
		if err := rewrite(w, resp.Body, *fault); err != nil {
			log.Printf("faultygw: %v", err)
		}
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}

// rewrite copies an Anthropic stream from r to w with the fault.
func rewrite(w io.Writer, r io.Reader, fault string) error {
	dec, enc := sse.NewDecoder(r), sse.NewEncoder(w)
	toolBlocks := map[int]int{} // tool_use block index -> input_json_delta events seen
	for {
		ev, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		var e struct {
			Type         string `json:"type"`
			Index        int    `json:"index"`
			ContentBlock struct {
				Type string `json:"type"`
			} `json:"content_block"`
			Delta struct {
				Type string `json:"type"`
			} `json:"delta"`
		}
		json.Unmarshal([]byte(ev.Data), &e)
		switch {
		case e.Type == "content_block_start" && e.ContentBlock.Type == "tool_use":
			toolBlocks[e.Index] = 0
			if fault == "early-stop" {
				if err := enc.Encode(ev); err != nil {
					return err
				}
				ev = sse.Event{Type: "content_block_stop", Data: fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, e.Index)}
			}
		case e.Type == "content_block_delta" && e.Delta.Type == "input_json_delta":
			toolBlocks[e.Index]++
			if fault == "drop-second-fragment" && toolBlocks[e.Index] == 2 {
				continue
			}
		case e.Type == "content_block_stop" && fault == "early-stop":
			if _, ok := toolBlocks[e.Index]; ok {
				continue // already closed
			}
		}
		if err := enc.Encode(ev); err != nil {
			return err
		}
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
}
