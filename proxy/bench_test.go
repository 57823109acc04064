package proxy

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolconform/conform/providers"
)

// chatText is one Chat Completions chunk carrying text.
func chatText(text string) string {
	return fmt.Sprintf("data: {\"id\":\"r\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", text)
}

const chatStop = "data: {\"id\":\"r\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"

// target returns the URL a benchmark's client sends to: the upstream
// itself (direct) or a proxy in front of it, openai-chat on both sides.
func target(b *testing.B, upURL string, direct bool) string {
	b.Helper()
	if direct {
		return upURL
	}
	px, err := New(Options{Front: "openai-chat", Upstream: "openai-chat", UpstreamURL: upURL})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(px)
	b.Cleanup(srv.Close)
	return srv.URL
}

// streamRequest posts a streamed openai-chat request to base.
func streamRequest(b *testing.B, client *http.Client, base string) *http.Response {
	b.Helper()
	ep, _ := providers.HTTP("openai-chat")
	resp, err := client.Post(ep.URL(base, ep.DefaultModel, true), ep.ContentType, bytes.NewReader(frontRequest(b, "openai-chat", true)))
	if err != nil {
		b.Fatal(err)
	}
	return resp
}

// BenchmarkFirstByte measures, over loopback HTTP, the time from sending
// a streamed request to reading the first byte of the answer's body, from
// an upstream that answers at once (direct) and through the proxy
// (proxy); the difference is what the proxy adds (ns/first-byte). Each
// answer is one text chunk and the finish.
//
//	go test -run '^$' -bench 'FirstByte|PerEvent' -benchtime 2000x ./proxy
func BenchmarkFirstByte(b *testing.B) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, chatText("hello")+chatStop)
	}))
	defer up.Close()
	for _, direct := range []bool{true, false} {
		name := map[bool]string{true: "direct", false: "proxy"}[direct]
		b.Run(name, func(b *testing.B) {
			base := target(b, up.URL, direct)
			client := &http.Client{}
			var first time.Duration
			for b.Loop() {
				start := time.Now()
				resp := streamRequest(b, client, base)
				var one [1]byte
				if _, err := io.ReadFull(resp.Body, one[:]); err != nil {
					b.Fatal(err)
				}
				first += time.Since(start)
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			b.ReportMetric(float64(first.Nanoseconds())/float64(b.N), "ns/first-byte")
		})
	}
}

// BenchmarkPerEvent measures the time from the upstream writing one text
// chunk to the client reading its translation (ns/event), direct and
// through the proxy, on one long stream: the upstream writes each chunk
// only when the client asks for it.
func BenchmarkPerEvent(b *testing.B) {
	next := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fl := w.(http.Flusher)
		fl.Flush()
		for {
			select {
			case _, ok := <-next:
				if !ok {
					io.WriteString(w, chatStop)
					return
				}
				io.WriteString(w, chatText("delta"))
				fl.Flush()
			case <-r.Context().Done():
				return
			}
		}
	}))
	defer up.Close()
	for _, direct := range []bool{true, false} {
		name := map[bool]string{true: "direct", false: "proxy"}[direct]
		b.Run(name, func(b *testing.B) {
			base := target(b, up.URL, direct)
			resp := streamRequest(b, &http.Client{}, base)
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			var total time.Duration
			for b.Loop() {
				start := time.Now()
				next <- struct{}{}
				for {
					line, err := br.ReadString('\n')
					if err != nil {
						b.Fatal(err)
					}
					if strings.Contains(line, `"content":"delta"`) {
						break
					}
				}
				total += time.Since(start)
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/event")
			resp.Body.Close()
		})
	}
}

// BenchmarkStreamMemory streams a long text answer through the proxy to a
// front it streams to (openai-chat) and samples the heap while it flows:
// peak-heap-MiB stays flat as the stream grows from 16 MiB to 256 MiB,
// since the proxy keeps none of the text.
//
//	go test -run '^$' -bench StreamMemory -benchtime 1x ./proxy
func BenchmarkStreamMemory(b *testing.B) {
	piece := strings.Repeat("x", 64<<10)
	chunk := chatText(piece)
	for _, mib := range []int{16, 64, 256} {
		b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				for range mib << 20 / len(piece) {
					io.WriteString(w, chunk)
				}
				io.WriteString(w, chatStop)
			}))
			defer up.Close()
			base := target(b, up.URL, false)
			var peak uint64
			for b.Loop() {
				runtime.GC()
				stop := make(chan struct{})
				var wg sync.WaitGroup
				wg.Go(func() {
					var ms runtime.MemStats
					for {
						runtime.ReadMemStats(&ms)
						peak = max(peak, ms.HeapInuse)
						select {
						case <-stop:
							return
						case <-time.After(5 * time.Millisecond):
						}
					}
				})
				resp := streamRequest(b, &http.Client{}, base)
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				close(stop)
				wg.Wait()
				if n < int64(mib<<20) {
					b.Fatalf("%d bytes came back for %d MiB of text", n, mib)
				}
			}
			b.SetBytes(int64(mib << 20))
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}
