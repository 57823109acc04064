// Command mcpserver is an MCP server over stdio for the sandbox tests,
// built with the official Go SDK. Its tools try what a sandbox must stop:
// connect dials a TCP address, env lists the environment, write writes a
// file. A refusal is an error result naming the errno.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sort"
	"strings"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var errnoNames = map[syscall.Errno]string{
	syscall.ECONNREFUSED: "ECONNREFUSED", syscall.ENETUNREACH: "ENETUNREACH", syscall.EROFS: "EROFS", syscall.EACCES: "EACCES",
}

func result(text string, isError bool) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, IsError: isError}
}

func denied(err error) *sdk.CallToolResult {
	var e syscall.Errno
	if errors.As(err, &e) && errnoNames[e] != "" {
		return result("denied: "+errnoNames[e], true)
	}
	return result("failed: "+err.Error(), true)
}

func schema(prop string) json.RawMessage {
	if prop == "" {
		return json.RawMessage(`{"type":"object"}`)
	}
	return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{%q:{"type":"string"}},"required":[%q]}`, prop, prop))
}

func main() {
	s := sdk.NewServer(&sdk.Implementation{Name: "fenced", Version: "1.0.0"}, nil)
	s.AddTool(&sdk.Tool{Name: "connect", Description: "Dial a TCP address", InputSchema: schema("addr")},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct{ Addr string }
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			c, err := net.DialTimeout("tcp", in.Addr, 10*time.Second)
			if err != nil {
				return denied(err), nil
			}
			c.Close()
			return result("connected", false), nil
		})
	s.AddTool(&sdk.Tool{Name: "env", Description: "List the environment", InputSchema: schema("")},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			env := os.Environ()
			sort.Strings(env)
			return result(strings.Join(env, "\n"), false), nil
		})
	s.AddTool(&sdk.Tool{Name: "write", Description: "Write a file", InputSchema: schema("path")},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct{ Path string }
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			if err := os.WriteFile(in.Path, []byte("escaped\n"), 0o644); err != nil {
				return denied(err), nil
			}
			return result("written", false), nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcpserver:", err)
		os.Exit(1)
	}
}
