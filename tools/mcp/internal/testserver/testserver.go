// Package testserver is the MCP server the tests of tools/mcp talk to,
// built with the official Go SDK: over stdio as the program in
// tools/mcp/testdata/server, and in process over streamable HTTP.
package testserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// PageSize is the server's page size for tools/list, small so that a
// client must follow the cursor to see every tool.
const PageSize = 2

// New returns a server named "testserver" with these tools:
//
//   - echo (read-only): returns {"echo": <its arguments>} as text;
//   - files.read (a name with a dot, as MCP allows): returns the text
//     "contents of <path>";
//   - add: returns {"sum": a+b} as structured content, with an output schema;
//   - fail: an error result (isError) with the text "failed on purpose: <why>";
//   - exit: ends the server's process (stdio only), a transport failure.
func New() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "testserver", Version: "1.0.0"}, &sdk.ServerOptions{PageSize: PageSize})
	object := func(props string, required ...string) json.RawMessage {
		req, _ := json.Marshal(append([]string{}, required...))
		return json.RawMessage(`{"type":"object","properties":` + props + `,"required":` + string(req) + `}`)
	}
	s.AddTool(&sdk.Tool{
		Name:        "echo",
		Description: "Echo the arguments back",
		InputSchema: object(`{"text":{"type":"string"}}`, "text"),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
	}, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text(`{"echo":` + string(req.Params.Arguments) + `}`), nil
	})
	s.AddTool(&sdk.Tool{
		Name:        "files.read",
		Description: "Read a file",
		InputSchema: object(`{"path":{"type":"string"}}`, "path"),
	}, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var in struct{ Path string }
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		return text("contents of " + in.Path), nil
	})
	s.AddTool(&sdk.Tool{
		Name:         "add",
		Description:  "Add two integers",
		InputSchema:  object(`{"a":{"type":"integer"},"b":{"type":"integer"}}`, "a", "b"),
		OutputSchema: object(`{"sum":{"type":"integer"}}`, "sum"),
	}, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var in struct{ A, B int }
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		out := map[string]int{"sum": in.A + in.B}
		res := text(fmt.Sprintf(`{"sum":%d}`, in.A+in.B))
		res.StructuredContent = out
		return res, nil
	})
	s.AddTool(&sdk.Tool{
		Name:        "fail",
		Description: "Fail with an error result",
		InputSchema: object(`{"why":{"type":"string"}}`),
	}, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var in struct{ Why string }
		_ = json.Unmarshal(req.Params.Arguments, &in)
		res := text("failed on purpose: " + strings.TrimSpace(in.Why))
		res.IsError = true
		return res, nil
	})
	s.AddTool(&sdk.Tool{
		Name:        "exit",
		Description: "End the server process",
		InputSchema: object(`{}`),
	}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		os.Exit(3)
		return nil, nil
	})
	return s
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}
