package textexec

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/textcalls"
)

// echo is a program in sh that parses every delta as text.
const echo = `while read -r line; do
  id=$(printf '%s' "$line" | sed 's/^{"id":\([0-9]*\).*/\1/')
  case "$line" in
  *'"op":"hello"'*) printf '{"id":%s,"formats":["hermes"]}\n' "$id" ;;
  *'"deltas":["a","b"]'*) printf '{"id":%s,"events":[[{"kind":"text","text":"a"}],[{"kind":"text","text":"b"}],[]]}\n' "$id" ;;
  *'"deltas":["crash"]'*) exit 3 ;;
  *'"deltas":["hang"]'*) sleep 5 ;;
  *) printf '{"id":%s,"events":[[]]}\n' "$id" ;;
  esac
done`

func TestParseAndFailures(t *testing.T) {
	p, err := Start(echo, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if got := p.Formats(); len(got) != 1 || got[0] != "hermes" {
		t.Fatalf("formats %q", got)
	}
	resp, err := core.Collect(textcalls.NewStream(p.Parser("hermes", textcalls.Options{}), textcalls.Deltas("a", "b")))
	if err != nil || resp.Message.Text() != "ab" {
		t.Fatalf("collected %+v, %v; want the text ab", resp, err)
	}
	// A wrong number of event lists fails the question.
	if _, err := p.Parse("hermes", textcalls.Options{}, []string{"x", "y"}); err == nil || !strings.Contains(err.Error(), "1 lists of events; want 3") {
		t.Fatalf("a short answer: %v", err)
	}
	// A crash fails its question; the next starts a new child.
	if _, err := p.Parse("hermes", textcalls.Options{}, []string{"crash"}); err == nil || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("a crash: %v", err)
	}
	if _, err := p.Parse("hermes", textcalls.Options{}, []string{"a", "b"}); err != nil {
		t.Fatalf("after a crash: %v", err)
	}
	// A hang misses its deadline once; the program is not asked again.
	if _, err := p.Parse("hermes", textcalls.Options{}, []string{"hang"}); !errors.Is(err, ErrTimeout) {
		t.Fatalf("a hang: %v", err)
	}
	start := time.Now()
	if _, err := p.Parse("hermes", textcalls.Options{}, []string{"a", "b"}); !errors.Is(err, ErrTimeout) || time.Since(start) > 100*time.Millisecond {
		t.Fatalf("after a hang: %v after %v", err, time.Since(start))
	}
}

// A delta that ends inside a UTF-8 character is sent with the rest of it.
func TestWholeCharacters(t *testing.T) {
	x := &parser{}
	for _, d := range []string{"a\xe4", "\xb8", "\xadb", "\xf0\x9f"} {
		x.Feed(nil, d)
	}
	if x.pending != "\xf0\x9f" || len(x.deltas) != 2 || x.deltas[0] != "a" || x.deltas[1] != "中b" {
		t.Fatalf("deltas %q, pending %q", x.deltas, x.pending)
	}
}
