package scenarios

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPatternMatch(t *testing.T) {
	names := []string{
		"openai-chat/streaming/A05-round-robin-interleaving",
		"openai-chat/history/G03-partial-results",
		"anthropic/streaming/A19-interleaved-blocks",
		"anthropic/recorded/fantasy-tool-0",
	}
	tests := []struct {
		pattern string
		want    []string
	}{
		{"openai-chat", names[:2]},
		{"openai", names[:2]},
		{"^openai-chat$/streaming", names[:1]},
		{"/streaming", []string{names[0], names[2]}},
		{"//A05", names[:1]},
		{"//A0", names[:1]},
		{"anthropic//^fantasy", names[3:]},
		{"a/b/c/d", nil},
		{"x", nil},
	}
	for _, tt := range tests {
		p, err := CompilePattern(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, n := range names {
			if p.Match(n) {
				got = append(got, n)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("pattern %q matches (-want +got):\n%s", tt.pattern, diff)
		}
	}
}

func TestCompilePatternError(t *testing.T) {
	_, err := CompilePattern("openai/(x")
	if err == nil || !strings.Contains(err.Error(), `compile pattern "openai/(x": segment 2`) {
		t.Errorf("error = %v, want one naming segment 2", err)
	}
}

func TestParsePatternList(t *testing.T) {
	data := "# comment\n\nopenai-chat//A05 # adapter bug, see report\n  anthropic/history\n"
	ps, err := ParsePatternList("kf.txt", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ps {
		got = append(got, p.String()+"@"+p.Where())
	}
	want := []string{"openai-chat//A05@kf.txt:3", "anthropic/history@kf.txt:4"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("patterns (-want +got):\n%s", diff)
	}
	if _, err := ParsePatternList("kf.txt", []byte("ok\n(bad\n")); err == nil || !strings.Contains(err.Error(), "kf.txt:2") {
		t.Errorf("error = %v, want one naming kf.txt:2", err)
	}
}

func TestMatchesProtocol(t *testing.T) {
	tests := []struct {
		pattern, protocol string
		want              bool
	}{
		{"^openai-chat$/streaming", "openai-chat", true},
		{"^openai-chat$/streaming", "openai-responses", false},
		{"openai", "openai-responses", true},
		{"^(bedrock|cohere)$//G06", "cohere", true},
		{"^(bedrock|cohere)$//G06", "gemini", false},
	}
	for _, tt := range tests {
		if got := MustCompilePattern(tt.pattern).MatchesProtocol(tt.protocol); got != tt.want {
			t.Errorf("%q.MatchesProtocol(%q) = %v, want %v", tt.pattern, tt.protocol, got, tt.want)
		}
	}
}
