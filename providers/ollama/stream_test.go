package ollama

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
)

// TestStreamNotOllama checks that JSON lines none of which is an /api/chat
// line are refused at the first of them, wrapping core.ErrNotStream, while
// a stream that has such lines among its own still decodes.
func TestStreamNotOllama(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		offset     int64
	}{
		{"one foreign line", "{\"x\":1}\n", 0},
		{"after blank lines", "\n\n{\"choices\":[]}\n{\"y\":2}\n", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := core.Collect(New().DecodeStream(strings.NewReader(tt.body)))
			var oe *DecodeError
			if !errors.Is(err, core.ErrNotStream) || !errors.As(err, &oe) || oe.Offset != tt.offset {
				t.Fatalf("error %v, want one wrapping core.ErrNotStream at byte %d", err, tt.offset)
			}
		})
	}
	body := "{\"x\":1}\n{\"model\":\"m\",\"created_at\":\"t\",\"message\":{\"role\":\"assistant\",\"content\":\"hi\"},\"done\":true,\"done_reason\":\"stop\"}\n"
	resp, err := core.Collect(New().DecodeStream(strings.NewReader(body)))
	if err != nil || resp.Text() != "hi" {
		t.Fatalf("a stream with a foreign line among its own: %v, text %q", err, resp.Text())
	}
}
