package bench

import (
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/toolconform/conform/cassettes"
)

// FuzzFrames checks Frames against the cassettes package's own frame
// splitter, which replays Bedrock recordings one frame at a time: both
// count whole frames by their length prelude and what is left as one
// piece, so they must agree on any input. Seeds are the recorded Bedrock
// streams and bodies cut or malformed at the prelude.
func FuzzFrames(f *testing.F) {
	bodies, err := CorpusStreams(Bedrock)
	if err != nil {
		f.Fatal(err)
	}
	for _, b := range bodies {
		f.Add(b.Data)
		f.Add(b.Data[:len(b.Data)/2])
	}
	tooShort := make([]byte, 16)
	binary.BigEndian.PutUint32(tooShort, 15)
	tooLong := make([]byte, 16)
	binary.BigEndian.PutUint32(tooLong, 1<<31)
	for _, b := range [][]byte{nil, {0, 0, 0}, tooShort, tooLong} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got := Frames(body)
		want := len(cassettes.SplitStream("application/vnd.amazon.eventstream", body))
		if got != want {
			t.Errorf("Frames = %d, cassettes.SplitStream cuts %d pieces", got, want)
		}
	})
}

// FuzzArrayElements checks ArrayElements against encoding/json: for a
// body that is a valid JSON array, it counts the array's elements; for
// any other body it returns no more elements than the body has bytes and
// never panics. Seeds are the recorded Gemini streams (SSE and JSON
// arrays) and cut or malformed arrays.
func FuzzArrayElements(f *testing.F) {
	bodies, err := CorpusStreams(Gemini)
	if err != nil {
		f.Fatal(err)
	}
	for _, b := range bodies {
		f.Add(b.Data)
	}
	for _, s := range []string{"", "[", "[]", "[1,", "[1 2]", `[{"a":[}]`, " [ 1 , {} ] ", "{}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got := ArrayElements(body)
		if got < 0 || got > len(body) {
			t.Fatalf("ArrayElements = %d for %d bytes", got, len(body))
		}
		var arr []json.RawMessage
		if json.Unmarshal(body, &arr) == nil && arr != nil && got != len(arr) {
			t.Errorf("ArrayElements = %d, the array has %d elements", got, len(arr))
		}
	})
}
