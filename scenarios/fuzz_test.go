package scenarios

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics and that every failure is a
// *ParseError naming the file. The seeds are the built-in scenarios and
// known-bad inputs.
func FuzzParse(f *testing.F) {
	err := fs.WalkDir(builtin, BuiltinRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".txtar") || strings.Contains(p, "/recorded/") {
			return err
		}
		data, err := fs.ReadFile(builtin, p)
		if err != nil {
			return err
		}
		f.Add(data)
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	for _, bad := range []string{
		"",
		"-- response.sse --\n",
		"x\nseverity: MUST\nseverity: MUST\n",
		goodHeader + "-- want/calls.json --\n[{\"name\":1}]\n-- response.sse --\n\n",
		goodHeader + "-- response.b64 --\n====\n",
		goodHeader + "-- want/finish.txt --\na b c\n-- response.sse --\n\n",
		goodHeader + "-- want/error.txt --\n[\n-- response.sse --\n\n",
		goodHeader + "-- request.json --\n{\"messages\": [{\"role\": 1}]}\n-- response.sse --\n\n",
	} {
		f.Add([]byte(bad))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse("openai-chat/streaming/fuzz", "fuzz.txtar", data, nil)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "fuzz.txtar" {
				t.Fatalf("error %v (%T) is not a *ParseError naming the file", err, err)
			}
			return
		}
		if sc.Severity == "" || sc.Kind == "" || len(sc.Protocols) == 0 || sc.Comment == "" {
			t.Fatalf("parsed scenario lacks a required header: %+v", sc)
		}
	})
}
