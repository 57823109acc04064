package main

import "testing"

// TestHandWritten checks that a re-run keeps the hand-written section of
// the earlier results, and only it.
func TestHandWritten(t *testing.T) {
	tests := []struct{ name, old, want string }{
		{"none", "# Client matrix results\n\n## Passes\n", ""},
		{"between sections", "# R\n\nintro\n\n## Read this first (by hand)\n\n* a\n* b\n\n## Passes per set-up\n\n| x |\n",
			"## Read this first (by hand)\n\n* a\n* b\n\n"},
		{"last section", "# R\n\n## Read this first\n\n* only\n", "## Read this first\n\n* only\n\n"},
		{"a deeper heading stays inside", "## Read this first\n\n### detail\n\ntext\n## Next\n", "## Read this first\n\n### detail\n\ntext\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := handWritten(tt.old); got != tt.want {
				t.Errorf("handWritten = %q, want %q", got, tt.want)
			}
		})
	}
}
