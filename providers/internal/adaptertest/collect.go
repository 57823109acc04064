package adaptertest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

// CheckCorpusCollect runs every recorded SSE stream of a protocol through
// core.Collect, the reference Buffer, and checks that it finds the same
// calls as SummarizeEvents (the golden summaries' reading) with nothing
// incomplete, the same text and finish, and the provider's error where the
// stream has one. It fails if the protocol has no streams.
func CheckCorpusCollect(t *testing.T, protocol string, decode func(io.Reader) core.EventStream) {
	t.Helper()
	n := 0
	for _, rec := range Recordings(t, protocol) {
		for i, ex := range rec.Exchanges {
			if !IsSSE(ex.Response) {
				continue
			}
			n++
			events, err := Drain(decode(bytes.NewReader(ex.Response)))
			if err != nil {
				t.Fatalf("%s #%d: %v", rec.Name, i, err)
			}
			want := SummarizeEvents(events)
			resp, err := core.Collect(decode(bytes.NewReader(ex.Response)))
			var pe *core.ProviderError
			switch {
			case len(want.Errors) > 0 && !errors.As(err, &pe):
				t.Errorf("%s #%d: collect: error %v, want the provider error", rec.Name, i, err)
			case len(want.Errors) == 0 && err != nil:
				t.Errorf("%s #%d: collect: %v", rec.Name, i, err)
				continue
			}
			var got []CallSum
			for _, c := range resp.Calls() {
				got = append(got, CallSum{ID: c.ID, ItemID: c.ItemID, Name: c.Name, Args: string(c.Arguments)})
			}
			if diff := cmp.Diff(want.Calls, got); diff != "" {
				t.Errorf("%s #%d: calls (-want +got):\n%s", rec.Name, i, diff)
			}
			if len(resp.Incomplete) > 0 {
				t.Errorf("%s #%d: incomplete calls %+v", rec.Name, i, resp.Incomplete)
			}
			if len(want.Errors) == 0 && (resp.Text() != want.Text || resp.Finish != want.Finish) {
				t.Errorf("%s #%d: text/finish differ from the golden summary", rec.Name, i)
			}
		}
	}
	if n == 0 {
		t.Fatalf("no %s streams", protocol)
	}
}

// CheckCorpusCollectByIndex drains every recorded stream of a protocol
// (Exchange.IsStream) through core.Collect and checks that it gives the
// calls AssembleByIndex finds, unrepaired, with nothing incomplete and no
// error, and the same text.
func CheckCorpusCollectByIndex(t *testing.T, protocol string, decode func(io.Reader) core.EventStream) {
	t.Helper()
	n := 0
	for _, rec := range Recordings(t, protocol) {
		for i, ex := range rec.Exchanges {
			if !ex.IsStream() {
				continue
			}
			n++
			t.Run(fmt.Sprintf("%s/%d", rec.Name, i), func(t *testing.T) {
				resp, err := core.Collect(decode(bytes.NewReader(ex.Response)))
				if err != nil {
					t.Fatal(err)
				}
				if len(resp.Incomplete) > 0 {
					t.Errorf("incomplete calls %+v", resp.Incomplete)
				}
				evs, err := Drain(decode(bytes.NewReader(ex.Response)))
				if err != nil {
					t.Fatal(err)
				}
				want, err := AssembleByIndex(evs)
				if err != nil {
					t.Fatal(err)
				}
				got := resp.Calls()
				if got == nil {
					got = []core.Call{}
				}
				for j := range got {
					if got[j].Repaired {
						t.Errorf("call %d was repaired: %+v", j, got[j])
					}
					got[j].Arguments = Compact(t, got[j].Arguments)
				}
				for j := range want.Calls {
					want.Calls[j].Arguments = Compact(t, want.Calls[j].Arguments)
				}
				if diff := cmp.Diff(want.Calls, got); diff != "" {
					t.Errorf("calls (-want +got):\n%s", diff)
				}
				if resp.Text() != want.Text {
					t.Errorf("text %q, want %q", resp.Text(), want.Text)
				}
			})
		}
	}
	if n == 0 {
		t.Errorf("no recorded %s streams", protocol)
	}
}

// CheckCorpusSummaries decodes every recorded response of a protocol,
// streamed (Exchange.IsStream, assembled with AssembleByIndex) or whole
// (SummarizeByIndex), with arguments compacted and adjust applied, and
// compares each recording's list with testdata/golden/<name>.json. An HTTP
// error status must give Response.Error. It fails unless the corpus gives
// some streams, bodies and calls.
func CheckCorpusSummaries(t *testing.T, protocol string, a core.Adapter, adjust func(*IndexSummary)) {
	t.Helper()
	var streams, bodies, calls int
	for _, rec := range Recordings(t, protocol) {
		t.Run(rec.Name, func(t *testing.T) {
			var got []IndexSummary
			for i, ex := range rec.Exchanges {
				var s IndexSummary
				if ex.IsStream() {
					streams++
					evs, err := Drain(a.DecodeStream(bytes.NewReader(ex.Response)))
					if err != nil {
						t.Fatalf("exchange %d: %v", i, err)
					}
					if s, err = AssembleByIndex(evs); err != nil {
						t.Fatalf("exchange %d: %v", i, err)
					}
				} else {
					bodies++
					resp, err := a.DecodeResponse(ex.Response)
					if err != nil {
						t.Fatalf("exchange %d: %v", i, err)
					}
					if ex.Status >= 400 && resp.Error == nil {
						t.Errorf("exchange %d: HTTP %d body decoded without Response.Error", i, ex.Status)
					}
					s = SummarizeByIndex(resp)
				}
				for j := range s.Calls {
					s.Calls[j].Arguments = Compact(t, s.Calls[j].Arguments)
				}
				if adjust != nil {
					adjust(&s)
				}
				calls += len(s.Calls)
				got = append(got, s)
			}
			CheckGolden(t, filepath.Join("testdata", "golden", rec.Name+".json"), got)
		})
	}
	t.Logf("%d streams, %d bodies, %d calls", streams, bodies, calls)
	if streams == 0 || bodies == 0 || calls == 0 {
		t.Errorf("corpus gave %d streams, %d bodies, %d calls; want some of each", streams, bodies, calls)
	}
}

// CheckCorpusGolden decodes every non-empty recorded response of an SSE
// protocol, streams (IsSSE) with DecodeStream and SummarizeEvents, bodies
// with DecodeResponse and SummarizeResponse, and compares each recording's
// list with testdata/golden/<name>.json. It returns how many responses it
// decoded, for the caller to check against the size of its corpus.
func CheckCorpusGolden(t *testing.T, protocol string, a core.Adapter) int {
	t.Helper()
	n := 0
	for _, rec := range Recordings(t, protocol) {
		t.Run(rec.Name, func(t *testing.T) {
			var got []Summary
			for i, ex := range rec.Exchanges {
				if len(ex.Response) == 0 {
					continue
				}
				n++
				if IsSSE(ex.Response) {
					events, err := Drain(a.DecodeStream(bytes.NewReader(ex.Response)))
					if err != nil {
						t.Fatalf("exchange %d: decode stream: %v", i, err)
					}
					got = append(got, SummarizeEvents(events))
					continue
				}
				resp, err := a.DecodeResponse(ex.Response)
				if err != nil {
					t.Fatalf("exchange %d: decode response: %v", i, err)
				}
				got = append(got, SummarizeResponse(resp))
			}
			CheckGolden(t, filepath.Join("testdata", "golden", rec.Name+".json"), got)
		})
	}
	return n
}

// CheckCorpusRequests decodes every recorded request of a protocol, encodes
// it again and compares norm of the recorded body with norm of the
// re-encoded one, norm dropping what the adapter does not model and folding
// what the canonical model cannot tell apart. It returns how many requests
// it round-tripped.
func CheckCorpusRequests(t *testing.T, protocol string, a core.Adapter, norm func(t *testing.T, body []byte) map[string]any) int {
	t.Helper()
	return CheckCorpusRequestsWith(t, protocol, func([]byte) core.Adapter { return a }, norm)
}

// CheckCorpusRequestsWith is CheckCorpusRequests for a protocol with several
// request shapes: pick returns the adapter that decodes and re-encodes a
// recorded body (Bedrock's Converse or InvokeModel, by the body).
func CheckCorpusRequestsWith(t *testing.T, protocol string, pick func(body []byte) core.Adapter, norm func(t *testing.T, body []byte) map[string]any) int {
	t.Helper()
	n := 0
	for _, rec := range Recordings(t, protocol) {
		for i, ex := range rec.Exchanges {
			if len(ex.Request) == 0 {
				continue
			}
			n++
			a := pick(ex.Request)
			req, err := a.DecodeRequest(ex.Request)
			if err != nil {
				t.Errorf("%s #%d: decode request: %v", rec.Name, i, err)
				continue
			}
			out, err := a.EncodeRequest(req)
			if err != nil {
				t.Errorf("%s #%d: encode request: %v", rec.Name, i, err)
				continue
			}
			want, got := norm(t, ex.Request), norm(t, out)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s #%d: request round trip (-want +got):\n%s", rec.Name, i, diff)
			}
		}
	}
	return n
}
