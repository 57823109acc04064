package serve

import "testing"

// TestReasonKind checks that reasons that differ only in what
// differs from case to case are one kind, and failure-mode ids stay.
func TestReasonKind(t *testing.T) {
	for reason, want := range map[string]string{
		"exit status 2, want 0":                                  "exit status N, want N",
		"exit status 137, want 0":                                "exit status N, want N",
		"G01: served 2 call(s) but no follow-up arrived":         "G01",
		`stdout does not show the final answer "done"`:           `stdout does not show the final answer "…"`,
		"the client never sent its first request (errors: x)":    "the client never sent its first request",
		"exit 0 after a broken stream with 3 incomplete call(s)": "exit N after a broken stream with N incomplete call",
	} {
		if got := ReasonKind(reason); got != want {
			t.Errorf("ReasonKind(%q) = %q, want %q", reason, got, want)
		}
	}
}
