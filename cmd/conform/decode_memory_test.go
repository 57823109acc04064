package main

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// generatedStream is a body made on demand: a head, then one event
// repeated until the body holds size bytes, then a tail. It never holds
// more than one event, so any memory a reader of it keeps is the reader's.
// Every sampleEvery bytes it calls sample.
type generatedStream struct {
	head, event, tail []byte
	size              int64 // bytes of the body, head and tail included
	read              int64
	pending           []byte
	sampleEvery       int64
	nextSample        int64
	sample            func()
}

func (g *generatedStream) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(g.pending) == 0 {
			switch left := g.size - g.read - int64(len(g.tail)); {
			case g.read == 0:
				g.pending = g.head
			case left >= int64(len(g.event)):
				g.pending = g.event
			case left > 0:
				g.pending = bytes.Repeat([]byte("\n"), int(left)) // blank lines pad an SSE body
			case g.size > g.read:
				g.pending = g.tail
			default:
				if n == 0 {
					return 0, io.EOF
				}
				return n, nil
			}
		}
		c := copy(p[n:], g.pending)
		g.pending = g.pending[c:]
		n += c
		g.read += int64(c)
	}
	if g.sample != nil && g.read >= g.nextSample {
		g.nextSample += g.sampleEvery
		g.sample()
	}
	return n, nil
}

// retainedPeak measures the largest live heap seen at the samples: each
// sample collects garbage first, so what it counts is what the reader keeps.
type retainedPeak struct{ peak uint64 }

func (r *retainedPeak) sample() {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.peak = max(r.peak, ms.HeapAlloc)
}

// openAIChatStream returns an openai-chat stream of size bytes whose events
// carry nothing to keep, ending with a finish.
func openAIChatStream(size int64, sample func()) *generatedStream {
	return &generatedStream{
		head:        []byte("data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n"),
		event:       []byte("data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"}}]}\n\n"),
		tail:        []byte("data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"done\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"),
		size:        size,
		sampleEvery: 8 << 20,
		sample:      sample,
	}
}

// TestDecodeStreamRetainsLittle decodes a 256 MiB stream from a reader that
// makes it on demand and checks that decode keeps a bounded amount of it
// alive, far below the body's size: it decodes from the reader instead of
// reading the body first.
func TestDecodeStreamRetainsLittle(t *testing.T) {
	const size = 256 << 20
	var peak retainedPeak
	var stdout, stderr bytes.Buffer
	status := Run(context.Background(), []string{"decode", "--protocol", "openai-chat"}, openAIChatStream(size, peak.sample), &stdout, &stderr)
	if status != exitOK {
		t.Fatalf("exit %d: %s", status, stderr.String())
	}
	if !strings.Contains(stdout.String(), `"text": "done"`) {
		t.Errorf("decode did not reach the end of the stream:\n%s", stdout.String())
	}
	const bound = 16 << 20
	if peak.peak > bound {
		t.Errorf("decoding a %d-byte stream kept %d bytes alive, more than %d", size, peak.peak, bound)
	}
	t.Logf("decoding a %d-byte stream kept at most %d bytes alive", size, peak.peak)
}

// BenchmarkDecodeStream1GiB decodes a 1 GiB stream made on demand and
// reports the largest live heap (peak-live-B) and the bytes allocated per
// run (B/op).
func BenchmarkDecodeStream1GiB(b *testing.B) {
	b.ReportAllocs()
	var peak retainedPeak
	for range b.N {
		status := Run(context.Background(), []string{"decode", "--protocol", "openai-chat"}, openAIChatStream(1<<30, peak.sample), io.Discard, io.Discard)
		if status != exitOK {
			b.Fatalf("exit %d", status)
		}
	}
	b.ReportMetric(float64(peak.peak), "peak-live-B")
}

// TestDecodeRefusesLongDocument gives decode one JSON document longer than
// it reads whole, as a 1 GiB Ollama line: refused by its size, naming the
// input, with no output.
func TestDecodeRefusesLongDocument(t *testing.T) {
	body := &generatedStream{
		head:  []byte(`{"model":"m","message":{"role":"assistant","content":"`),
		event: []byte("xxxxxxxxxxxxxxxx"),
		tail:  []byte(`"},"done":true}`),
		size:  1 << 30,
	}
	var stdout, stderr bytes.Buffer
	status := Run(context.Background(), []string{"decode", "--protocol", "ollama"}, body, &stdout, &stderr)
	if status != exitUsage {
		t.Errorf("exit %d, want %d", status, exitUsage)
	}
	if want := regexp.MustCompile(`^conform: decode: reading standard input: body too large: more than \d+ bytes\n$`); !want.MatchString(stderr.String()) {
		t.Errorf("stderr %q does not match %q", stderr.String(), want)
	}
	if stdout.Len() > 0 {
		t.Errorf("printed %q for a refused body", stdout.String())
	}
	if body.read > maxResponseBody+sniffWindow+1<<20 {
		t.Errorf("read %d bytes of a body refused beyond %d", body.read, maxResponseBody)
	}
}
