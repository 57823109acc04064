package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolconform/conform/tools"
)

// MaxTools bounds how many tools one server may list; a server that lists
// more is refused with ErrTooManyTools, so that a runaway cursor cannot
// keep the client paging forever.
const MaxTools = 10000

// ErrTooManyTools is wrapped by the error of Definitions and Tools for a
// server that lists more than MaxTools tools.
var ErrTooManyTools = errors.New("too many tools")

// ErrServer is wrapped by every error about a server or its transport (a
// failed connection, a broken pipe, a protocol error), as opposed to an
// error result of a tool, which is a *ToolError.
var ErrServer = errors.New("mcp server failed")

// ToolError is the error of a handler whose tools/call ended in an error
// result (isError): the tool ran and failed. Text is the result's text.
type ToolError struct {
	Server, Tool, Text string
}

func (e *ToolError) Error() string {
	return fmt.Sprintf("mcp server %q: tool %q returned an error: %s", e.Server, e.Tool, e.Text)
}

// Server is a session with one MCP server. Its methods are safe for
// concurrent use, the handlers of its tools too.
type Server struct {
	name    string
	session *sdk.ClientSession
}

// client is the implementation conform announces in initialize.
var client = &sdk.Implementation{Name: "conform", Version: "1"}

// ConnectCommand starts cmd and speaks MCP with it over its stdin and
// stdout. cmd must not have been started and must leave Stdin and Stdout
// unset; it may be prepared in any other way (a sandbox, an environment,
// a working directory). name is the server's name in errors and the
// source of its tools. Close ends the process: it closes stdin, then
// terminates the process if it has not exited after 5 seconds.
func ConnectCommand(ctx context.Context, name string, cmd *exec.Cmd) (*Server, error) {
	if cmd == nil {
		return nil, fmt.Errorf("mcp server %q: connect: nil command", name)
	}
	return connect(ctx, name, &sdk.CommandTransport{Command: cmd})
}

// ConnectURL connects to the streamable-HTTP MCP endpoint at url, with
// httpClient (nil means http.DefaultClient). The client does not open the
// optional standalone event stream: conform only asks and reads answers.
func ConnectURL(ctx context.Context, name, url string, httpClient *http.Client) (*Server, error) {
	return connect(ctx, name, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: httpClient, DisableStandaloneSSE: true})
}

func connect(ctx context.Context, name string, t sdk.Transport) (*Server, error) {
	if name == "" {
		return nil, fmt.Errorf("mcp server: connect: empty server name")
	}
	session, err := sdk.NewClient(client, nil).Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("mcp server %q: connect: %w: %w", name, ErrServer, err)
	}
	return &Server{name: name, session: session}, nil
}

// Name returns the name the server was connected under.
func (s *Server) Name() string { return s.name }

// Close ends the session and, for a command, the process.
func (s *Server) Close() error {
	if err := s.session.Close(); err != nil {
		return fmt.Errorf("mcp server %q: close: %w", s.name, err)
	}
	return nil
}

// Definitions returns the server's tool definitions as MCP sent them
// ({name, description, inputSchema, ...}), every page of tools/list, in
// the server's order.
func (s *Server) Definitions(ctx context.Context) ([]json.RawMessage, error) {
	var defs []json.RawMessage
	for t, err := range s.session.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("mcp server %q: tools/list: %w: %w", s.name, ErrServer, err)
		}
		if len(defs) == MaxTools {
			return nil, fmt.Errorf("mcp server %q: tools/list: %w: more than %d", s.name, ErrTooManyTools, MaxTools)
		}
		def, err := json.Marshal(t)
		if err != nil {
			return nil, fmt.Errorf("mcp server %q: tools/list: tool %q: %w", s.name, t.Name, err)
		}
		defs = append(defs, def)
	}
	return defs, nil
}

// Tools returns the server's tools as Tools whose handlers call
// tools/call on this server. Each is built with tools.FromMCP (risk from
// the annotations), with the server's name as source: its qualified name
// is "<server>.<tool>". opts are added to every tool; pass
// tools.WithNameMapper to accept the qualified names, which hold a dot.
//
// A handler returns the call's structured content when the tool has an
// output schema, and the text of its text content (parts joined by
// newlines) otherwise. An error result (isError) becomes a *ToolError, a
// failure of the server or its transport an error wrapping ErrServer;
// either way the Registry reports an error result to the model.
//
// A definition tools.FromMCP refuses (a schema that does not compile, a
// name that is not valid) is left out: Tools returns the other tools and
// an error joining one error per refused definition, each naming the
// server, the tool's index and the JSON pointer of the fault.
func (s *Server) Tools(ctx context.Context, opts ...tools.ToolOption) ([]*tools.Tool, error) {
	defs, err := s.Definitions(ctx)
	if err != nil {
		return nil, err
	}
	var refused []error
	built := make([]*tools.Tool, 0, len(defs))
	for i, def := range defs {
		var head struct {
			Name         string          `json:"name"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		if err := json.Unmarshal(def, &head); err != nil {
			refused = append(refused, fmt.Errorf("mcp server %q: tools[%d]: %w", s.name, i, err))
			continue
		}
		structured := len(head.OutputSchema) > 0 && string(head.OutputSchema) != "null"
		all := append([]tools.ToolOption{tools.WithSource(s.name), tools.WithOrigin("MCP server " + s.name)}, opts...)
		t, err := tools.FromMCP(def, s.handler(head.Name, structured), all...)
		if err != nil {
			refused = append(refused, fmt.Errorf("mcp server %q: tools[%d]: %w", s.name, i, err))
			continue
		}
		built = append(built, t)
	}
	return built, errors.Join(refused...)
}

func (s *Server) handler(tool string, structured bool) tools.Handler {
	return func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		res, err := s.session.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("mcp server %q: tools/call %q: %w: %w", s.name, tool, ErrServer, err)
		}
		text := resultText(res)
		if res.IsError {
			return nil, &ToolError{Server: s.name, Tool: tool, Text: text}
		}
		if structured && res.StructuredContent != nil {
			out, err := json.Marshal(res.StructuredContent)
			if err != nil {
				return nil, fmt.Errorf("mcp server %q: tools/call %q: structured content: %w", s.name, tool, err)
			}
			return out, nil
		}
		return json.RawMessage(text), nil
	}
}

// resultText joins the text parts of a result. Other parts (images,
// audio, resources) are named by type, since a tool result in core is
// text.
func resultText(res *sdk.CallToolResult) string {
	parts := make([]string, 0, len(res.Content))
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", c.MIMEType, len(c.Data)))
		default:
			parts = append(parts, fmt.Sprintf("[%T content]", c))
		}
	}
	return strings.Join(parts, "\n")
}
