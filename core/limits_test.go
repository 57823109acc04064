package core

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckDepth(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	tests := []struct {
		name    string
		data    string
		wantErr bool
		offset  string
	}{
		{name: "flat", data: `{"a":1}`},
		{name: "at the limit", data: deep},
		{name: "one past the limit", data: "[" + deep + "]", wantErr: true, offset: "byte 512"},
		{name: "brackets in strings do not count", data: `["` + strings.Repeat("[{", 2*MaxDepth) + `"]`},
		{name: "escaped quote keeps the string open", data: `["\"` + strings.Repeat("[", 2*MaxDepth) + `"]`},
		{name: "objects count", data: strings.Repeat(`{"a":`, MaxDepth+1), wantErr: true, offset: "byte 2560"},
		{name: "two million brackets", data: strings.Repeat("[", 2_090_000), wantErr: true, offset: "byte 512"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckDepth([]byte(tt.data))
			if got := err != nil; got != tt.wantErr {
				t.Fatalf("CheckDepth: error %v, want error %v", err, tt.wantErr)
			}
			if err == nil {
				return
			}
			if !errors.Is(err, ErrTooDeep) || !strings.Contains(err.Error(), tt.offset) {
				t.Errorf("CheckDepth: %v, want ErrTooDeep at %s", err, tt.offset)
			}
		})
	}
}
