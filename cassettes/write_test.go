package cassettes

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestWriteFileNeverOverwritesUnlessForced(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "c.yaml")
	if err := WriteFile(path, []byte("one"), false); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(path, []byte("two"), false)
	if !errors.Is(err, ErrExists) {
		t.Fatalf("second write without force: %v, want ErrExists", err)
	}
	if got := string(mustRead(t, path)); got != "one" {
		t.Errorf("file holds %q after a refused write, want %q", got, "one")
	}
	if err := WriteFile(path, []byte("three"), true); err != nil {
		t.Fatal(err)
	}
	if got := string(mustRead(t, path)); got != "three" {
		t.Errorf("file holds %q after a forced write, want %q", got, "three")
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only c.yaml (temporary files left behind)", names)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v; want 0644", fi.Mode(), err)
	}
}

// TestWriteFileRace lets writers race for one new file: exactly one wins,
// the file holds its bytes whole, and the others get ErrExists.
func TestWriteFileRace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	const writers = 16
	var wg sync.WaitGroup
	errs := make([]error, writers)
	payload := func(n int) []byte {
		b := make([]byte, 64<<10)
		for k := range b {
			b[k] = byte('a' + n)
		}
		return b
	}
	for n := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[n] = WriteFile(path, payload(n), false)
		}()
	}
	wg.Wait()
	winner := -1
	for n, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Errorf("writers %d and %d both succeeded", winner, n)
		case err == nil:
			winner = n
		case !errors.Is(err, ErrExists):
			t.Errorf("writer %d: %v, want ErrExists", n, err)
		}
	}
	if winner < 0 {
		t.Fatal("no writer succeeded")
	}
	if got := mustRead(t, path); string(got) != string(payload(winner)) {
		t.Errorf("file does not hold the winner's bytes whole")
	}
}

func TestSaveThenLoadRoundTrip(t *testing.T) {
	c, err := Load("bedrock/fantasy__TestBedrockCommon--bedrock-anthropic-claude-haiku-4-5--tool_streaming.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "x.yaml")
	if err := Save(c, path, false); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Interactions) != len(c.Interactions) {
		t.Fatalf("%d interactions after a round trip, want %d", len(back.Interactions), len(c.Interactions))
	}
	for k := range c.Interactions {
		if back.Interactions[k].Response.Body != c.Interactions[k].Response.Body {
			t.Errorf("interaction %d: response body changed in a round trip", k)
		}
	}
	if err := Save(c, path, false); !errors.Is(err, ErrExists) {
		t.Errorf("Save over an existing file: %v, want ErrExists", err)
	}
}

// TestMarshalDiscards leaves out interactions marked DiscardOnSave and
// numbers the rest without gaps.
func TestMarshalDiscards(t *testing.T) {
	c, err := Load("openai-chat/fantasy__TestOpenAICommon--openai-gpt-4o--tool.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Interactions) != 2 {
		t.Fatalf("%d interactions, want 2", len(c.Interactions))
	}
	c.Interactions[0].DiscardOnSave = true
	data, err := Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Interactions) != 1 || back.Interactions[0].ID != 0 || back.Interactions[0].Request.Body != c.Interactions[1].Request.Body {
		t.Errorf("after discarding the first: %d interactions, first id %d", len(back.Interactions), back.Interactions[0].ID)
	}
	if got := Folders(); len(got) != 8 || got[len(got)-1] != "other" {
		t.Errorf("Folders() = %v", got)
	}
}
