package gemini

import (
	"testing"

	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// TestEncodeRequestToolNames checks E01, E02 and E03 against the rule the
// adapter declares: a name the rule refuses is refused before sending,
// naming the tool, its index, the rule and tools.NameMapper; a name it
// allows is encoded unchanged.
func TestEncodeRequestToolNames(t *testing.T) {
	adaptertest.CheckToolNames(t, New(), "gemini: encode request", "tools[1].name")
}
