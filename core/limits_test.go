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

// TestLimitSentinels checks that every limit of a Buffer is a size limit to
// a caller that branches on ErrTooLarge, and keeps its own identity: the
// sentinel itself, and the error a Buffer returns for it.
func TestLimitSentinels(t *testing.T) {
	tests := []struct {
		name     string
		sentinel error
		lim      Limits
		chunks   []Chunk
	}{
		{"ErrArgumentsTooLarge", ErrArgumentsTooLarge, Limits{MaxArgBytes: 4}, []Chunk{{ID: "a", Name: "f", ArgsDelta: `{"a":1}`}}},
		{"ErrTooManyCalls", ErrTooManyCalls, Limits{MaxCalls: 1}, []Chunk{{ID: "a", Name: "f"}, {ID: "b", Name: "f"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !errors.Is(tt.sentinel, ErrTooLarge) {
				t.Errorf("errors.Is(%s, ErrTooLarge) = false", tt.name)
			}
			b := NewBuffer(WithLimits(tt.lim))
			var err error
			for _, c := range tt.chunks {
				_, err = b.Add(c)
			}
			if !errors.Is(err, tt.sentinel) || !errors.Is(err, ErrTooLarge) {
				t.Errorf("Buffer.Add past the limit: %v, want an error wrapping %s and ErrTooLarge", err, tt.name)
			}
		})
	}
	if errors.Is(ErrTooLarge, ErrTooManyCalls) || errors.Is(ErrArgumentsTooLarge, ErrTooManyCalls) {
		t.Error("another size limit is ErrTooManyCalls")
	}
}
