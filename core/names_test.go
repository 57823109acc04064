package core

import (
	"errors"
	"strings"
	"testing"
)

// TestNameRulesCheck checks NameRules.Check, the check every built-in
// adapter's EncodeRequest applies with its own rules: the common rule
// takes a digit-leading name (E03), a LetterFirst rule refuses it at byte
// 0, and only Extra widens the alphabet.
func TestNameRulesCheck(t *testing.T) {
	letterFirst := NameRules{Pattern: "^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$", MaxLen: 64, Extra: ".:-", LetterFirst: true}
	noDash := NameRules{Pattern: "^[a-zA-Z_][a-zA-Z0-9_]{0,63}$", MaxLen: 64, LetterFirst: true}
	tests := []struct {
		rules   NameRules
		name    string
		wantErr string // substring; "" means valid
		offset  int
	}{
		{rules: CommonNameRules, name: "get_weather"},
		{rules: CommonNameRules, name: "get-weather-2"},
		{rules: CommonNameRules, name: "3d_render"}, // E03
		{rules: CommonNameRules, name: strings.Repeat("a", 64)},
		{rules: CommonNameRules, name: "", wantErr: "empty", offset: -1},
		{rules: CommonNameRules, name: "github.list_prs", wantErr: `character '.' at byte 6`, offset: 6},
		{rules: CommonNameRules, name: "fs/read", wantErr: `character '/' at byte 2`, offset: 2},
		{rules: CommonNameRules, name: "read file", wantErr: `character ' ' at byte 4`, offset: 4},
		{rules: CommonNameRules, name: "café", wantErr: `character 'é' at byte 3`, offset: 3},
		{rules: CommonNameRules, name: strings.Repeat("a", 65), wantErr: "65 bytes long, more than 64", offset: -1}, // E02
		{rules: letterFirst, name: "github.list_prs:v2-beta"},
		{rules: letterFirst, name: "_3d_render"},
		{rules: letterFirst, name: "3d_render", wantErr: `starts with '3', not a letter or '_'`, offset: 0},
		{rules: letterFirst, name: "-x", wantErr: `starts with '-', not a letter or '_'`, offset: 0},
		{rules: letterFirst, name: "/x", wantErr: `character '/' at byte 0 not allowed`, offset: 0},
		{rules: noDash, name: "get_weather2"},
		{rules: noDash, name: "get-weather", wantErr: `character '-' at byte 3`, offset: 3},
		{rules: noDash, name: "9lives", wantErr: `starts with '9'`, offset: 0},
	}
	for _, tt := range tests {
		t.Run(tt.rules.Pattern+" "+tt.name, func(t *testing.T) {
			err := tt.rules.Check(tt.name)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Check(%q) = %v, want nil", tt.name, err)
				}
				return
			}
			var ne *NameError
			if !errors.As(err, &ne) || !errors.Is(err, ErrInvalidName) {
				t.Fatalf("Check(%q) = %v, want a *NameError wrapping ErrInvalidName", tt.name, err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) || ne.Offset != tt.offset || ne.Pattern != tt.rules.Pattern || !strings.Contains(err.Error(), tt.rules.Pattern) {
				t.Errorf("Check(%q) = %v (offset %d, pattern %s), want %q at offset %d naming %s", tt.name, err, ne.Offset, ne.Pattern, tt.wantErr, tt.offset, tt.rules.Pattern)
			}
		})
	}
}
