package core

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckName(t *testing.T) {
	tests := []struct {
		name    string
		wantErr string // substring; "" means valid
		offset  int
	}{
		{name: "get_weather"},
		{name: "get-weather-2"},
		{name: "3d_render"}, // E03: digit-leading names are valid
		{name: strings.Repeat("a", 64)},
		{name: "", wantErr: "empty", offset: -1},
		{name: "github.list_prs", wantErr: `character '.' at byte 6`, offset: 6},
		{name: "fs/read", wantErr: `character '/' at byte 2`, offset: 2},
		{name: "read file", wantErr: `character ' ' at byte 4`, offset: 4},
		{name: "café", wantErr: `character 'é' at byte 3`, offset: 3},
		{name: strings.Repeat("a", 65), wantErr: "65 bytes long, more than 64", offset: -1}, // E02
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckName(tt.name)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("CheckName(%q) = %v, want nil", tt.name, err)
				}
				return
			}
			var ne *NameError
			if !errors.As(err, &ne) || !errors.Is(err, ErrInvalidName) {
				t.Fatalf("CheckName(%q) = %v, want a *NameError wrapping ErrInvalidName", tt.name, err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) || ne.Offset != tt.offset {
				t.Errorf("CheckName(%q) = %v (offset %d), want %q at offset %d", tt.name, err, ne.Offset, tt.wantErr, tt.offset)
			}
		})
	}
}
