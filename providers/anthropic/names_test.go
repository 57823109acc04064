package anthropic

import (
	"testing"

	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// TestEncodeRequestToolNames checks E01 and E02: a tool name outside
// ^[a-zA-Z0-9_-]{1,64}$ is refused before sending, naming the tool, its
// index and tools.NameMapper; valid names, digit-leading ones included (E03),
// are encoded.
func TestEncodeRequestToolNames(t *testing.T) {
	adaptertest.CheckToolNames(t, New(), "anthropic: encode request", "tools[1]")
}
