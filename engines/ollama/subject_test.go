package ollama

import (
	"slices"
	"testing"
)

func TestStopped(t *testing.T) {
	e := Engine{Stops: []string{"<|call|>", "<|return|>"}}
	for _, c := range []struct{ in, want []string }{
		{[]string{"ab", "c"}, []string{"ab", "c"}},
		{[]string{"a<|ca", "ll|>b"}, []string{"a"}},
		{[]string{"ab", "<|return|>", "<|call|>"}, []string{"ab"}},
		{[]string{"x<|call|>", "<|return|>"}, []string{"x"}},
		{[]string{"<|call|>b"}, nil},
	} {
		if got := e.stopped(c.in); !slices.Equal(got, c.want) {
			t.Errorf("stopped(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
