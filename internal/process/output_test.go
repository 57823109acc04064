package process

import (
	"strings"
	"testing"
)

// TestPanicLine checks that the line naming a crash is found in the
// output of a Go panic, a Node uncaught error and a Python traceback, and
// that the output buffer keeps it when the stack after it is long.
func TestPanicLine(t *testing.T) {
	stack := strings.Repeat("goroutine 7 [running]:\nmain.f()\n\t/x/main.go:10 +0x1d\n", 2000)
	tests := []struct{ stderr, want string }{
		{"starting\npanic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV]\n\n" + stack, "panic: runtime error: invalid memory address or nil pointer dereference"},
		{"fatal error: all goroutines are asleep - deadlock!\n\n" + stack, "fatal error: all goroutines are asleep - deadlock!"},
		{"/c/index.js:3\n  throw new TypeError('x');\n  ^\n\nTypeError: Cannot read properties of undefined (reading 'usage')\n    at f (/c/index.js:3:9)\n", "TypeError: Cannot read properties of undefined (reading 'usage')"},
		{"Traceback (most recent call last):\n  File \"c.py\", line 3, in <module>\n    f()\nKeyError: 'id'\n", "KeyError: 'id'"},
		{"conform-client: follow-up: 400 Bad Request\n", ""},
	}
	for _, tt := range tests {
		b := NewOutput(4<<10, 12<<10)
		b.Write([]byte(tt.stderr))
		kept := b.String()
		if got := PanicLine(kept); got != tt.want {
			t.Errorf("PanicLine of %.60q… = %q, want %q", tt.stderr, got, tt.want)
		}
		if len(kept) > 17<<10 {
			t.Errorf("kept %d bytes of %d, want at most %d", len(kept), len(tt.stderr), 17<<10)
		}
	}
}
