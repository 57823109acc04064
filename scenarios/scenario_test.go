package scenarios

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/cassettes"
)

const goodHeader = `What the case checks.

severity: MUST
guards: A05 B09
protocol: openai-chat
kind: stream
`

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, data string
		// want is a substring of the error; line the ParseError line.
		want string
		line int
	}{
		{"unknown header", "Prose.\n\nseverity: MUST\nflavour: sweet\n", `unknown header key "flavour"`, 4},
		{"bad severity", "Prose.\nseverity: MAY\n", `severity "MAY"`, 2},
		{"bad guard", "Prose.\nguards: A5\n", `guard "A5"`, 2},
		{"repeated header", "Prose.\nkind: stream\nkind: response\n", `header "kind" repeated (first on line 2)`, 3},
		{"missing kind", "Prose.\nseverity: MUST\nguards:\nprotocol: openai-chat\n", `missing header "kind"`, 0},
		{"missing guards", "Prose.\nseverity: MUST\nkind: stream\nprotocol: openai-chat\n", `missing header "guards"`, 0},
		{"protocol mismatch", "Prose.\nseverity: MUST\nguards:\nkind: stream\nprotocol: anthropic\n", `does not match the name's first segment`, 5},
		{"no prose", "severity: MUST\nguards:\nkind: stream\nprotocol: openai-chat\n", "comment must say", 0},
		{"unknown section", goodHeader + "-- response.sse --\ndata: {}\n\n-- want/calls.yaml --\n[]\n", `unknown section "want/calls.yaml"`, 10},
		{"repeated section", goodHeader + "-- response.sse --\ndata: {}\n-- response.sse --\n", `section "response.sse" repeated`, 9},
		{"two bodies", goodHeader + "-- response.sse --\ndata: {}\n-- response.json --\n{}\n", "more than one response section", 9},
		{"bad calls json", goodHeader + "-- response.sse --\ndata: {}\n-- want/calls.json --\n[{\"name\": }]\n", "offset 11", 9},
		{"call without arguments", goodHeader + "-- response.sse --\ndata: {}\n-- want/calls.json --\n[{\"name\": \"f\"}]\n", "[0].arguments is missing", 9},
		{"unknown call field", goodHeader + "-- response.sse --\ndata: {}\n-- want/calls.json --\n[{\"name\": \"f\", \"arguments\": {}, \"args\": 1}]\n", "[0].args is not a call field", 9},
		{"stream without body", goodHeader, "needs provider bytes", 0},
		{"bad regexp", goodHeader + "-- response.sse --\ndata: {}\n-- want/error.txt --\n(unclosed\n", "want/error.txt", 9},
		{"unknown request field", "Prose.\nseverity: MUST\nguards:\nkind: request\nprotocol: openai-chat\n-- request.json --\n{\"mesages\": []}\n", `unknown field "mesages"`, 6},
		{"error pattern matching everything", goodHeader + "-- response.sse --\ndata: {}\n-- want/error.txt --\n.*\n", "matches every error", 9},
		{"empty request want", "Prose.\nseverity: MUST\nguards:\nkind: history\nprotocol: openai-chat\n-- request.json --\n{\"messages\": []}\n-- want/request.json --\n{}\n", "naming at least one top-level key", 8},
		{"bad b64", goodHeader + "-- response.b64 --\n!!!\n", "response.b64", 7},
		{"cassette without resolver", goodHeader + "cassette: x.yaml#0\n", "no cassette resolver", 7},
		// Found by FuzzParse: txtar.Parse panics on this marker.
		{"empty marker", "00000000000000\n-- --", "names no section", 2},
		{"empty marker crlf", goodHeader + "-- --\r\n", "names no section", 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("openai-chat/streaming/x", "x.txtar", []byte(tt.data), nil)
			if err == nil {
				t.Fatalf("Parse succeeded, want error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *ParseError", err)
			}
			if pe.Line != tt.line || pe.File != "x.txtar" {
				t.Errorf("error at %s:%d, want x.txtar:%d", pe.File, pe.Line, tt.line)
			}
		})
	}
}

func TestParseName(t *testing.T) {
	for _, name := range []string{"openai-chat/x", "a/b/c/d", "openai-chat/str eaming/x", "openai-chat//x"} {
		if _, err := Parse(name, "f", []byte(goodHeader+"-- response.sse --\n\n"), nil); err == nil {
			t.Errorf("Parse(%q) succeeded, want a name error", name)
		}
	}
}

func TestParseGood(t *testing.T) {
	data := goodHeader + `-- response.sse --
data: {"x":1}

-- want/calls.json --
[{"id":"<any>","name":"f","arguments":{"a":1}}]
-- want/finish.txt --
tool_calls stop
-- want/text.txt --
hello
`
	sc, err := Parse("openai-chat/streaming/x", "x.txtar", []byte(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{
		"comment": sc.Comment, "severity": sc.Severity, "guards": sc.Guards, "protocols": sc.Protocols,
		"kind": sc.Kind, "body": string(sc.Body), "calls": len(sc.Want.Calls), "finish": *sc.Want.Finish,
		"text": *sc.Want.Text, "incomplete": sc.Want.Incomplete == nil,
	}
	want := map[string]any{
		"comment": "What the case checks.", "severity": MUST, "guards": []string{"A05", "B09"},
		"protocols": []string{"openai-chat"}, "kind": KindStream, "body": "data: {\"x\":1}\n\n", "calls": 1,
		"finish": Finish{Reason: "tool_calls", Provider: "stop"}, "text": "hello", "incomplete": true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parsed scenario (-want +got):\n%s", diff)
	}
}

func TestLoadBuiltin(t *testing.T) {
	cases, err := LoadBuiltin(VCRResolver(cassettes.Load))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no built-in scenarios")
	}
	seen := map[string]bool{}
	for _, sc := range cases {
		if seen[sc.Name] {
			t.Errorf("duplicate scenario name %s", sc.Name)
		}
		seen[sc.Name] = true
	}
}

func TestParseCassetteLimit(t *testing.T) {
	big := func(string) ([]byte, error) { return make([]byte, MaxScenarioSize+1), nil }
	_, err := Parse("openai-chat/streaming/x", "x.txtar", []byte(goodHeader+"cassette: c.yaml#0\n"), big)
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("error = %v, want ErrTooLarge", err)
	}
	_, err = Parse("openai-chat/streaming/x", "x.txtar", []byte(goodHeader+"cassette: c.yaml#0\n"), func(string) ([]byte, error) { return nil, ErrBadCassetteRef })
	if !errors.Is(err, ErrBadCassetteRef) || !strings.Contains(err.Error(), "x.txtar:7") {
		t.Errorf("error = %v, want ErrBadCassetteRef at x.txtar:7", err)
	}
}
