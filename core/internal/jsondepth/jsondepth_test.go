package jsondepth

import (
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	deep := strings.Repeat("[", Max) + strings.Repeat("]", Max)
	tests := []struct {
		name   string
		data   string
		single bool
		offset int // -1: no error
	}{
		{name: "at the limit", data: deep, offset: -1},
		{name: "one past", data: "[" + deep + "]", offset: Max},
		{name: "closers never go below zero", data: strings.Repeat("]", 5) + "[" + deep + "]", offset: 5 + Max},
		{name: "double-quoted string", data: `["` + strings.Repeat("{", 2*Max) + `"]`, offset: -1},
		{name: "escaped quote", data: `["\"` + strings.Repeat("[", 2*Max) + `"]`, offset: -1},
		{name: "single quotes count without single", data: `['` + strings.Repeat("[", Max) + `']`, offset: Max + 1},
		{name: "single-quoted string with single", data: `['` + strings.Repeat("[", Max) + `']`, single: true, offset: -1},
		{name: "a single quote inside a double-quoted string", data: `["'",` + strings.Repeat("[", Max) + strings.Repeat("]", Max+1), single: true, offset: Max + 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, err := range []error{Check(tt.data, tt.single), Check([]byte(tt.data), tt.single)} {
				var e *Error
				switch {
				case tt.offset < 0 && err != nil:
					t.Fatalf("Check = %v, want nil", err)
				case tt.offset >= 0 && (!errors.As(err, &e) || !errors.Is(err, ErrTooDeep) || e.Offset != tt.offset):
					t.Fatalf("Check = %v, want ErrTooDeep at byte %d", err, tt.offset)
				}
			}
		})
	}
}
