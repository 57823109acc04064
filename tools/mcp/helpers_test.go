package mcp_test

import (
	"os"
	"testing"
)

var binDir string

// TestMain makes the directory the server program is built into and
// removes it at the end.
func TestMain(m *testing.M) {
	var err error
	if binDir, err = os.MkdirTemp("", "conform-mcp-server-"); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(binDir)
	os.Exit(code)
}
