// Package mcp imports the tools of a live MCP server as Tools, with
// the official Go SDK (github.com/modelcontextprotocol/go-sdk) as client.
//
//	cmd := exec.Command("my-mcp-server") // or a sandboxed *exec.Cmd
//	srv, err := mcp.ConnectCommand(ctx, "fs", cmd)
//	if err != nil {
//		return err
//	}
//	defer srv.Close()
//	tools, err := srv.Tools(ctx, tools.WithNameMapper(tools.NewNameMapper()))
//	// tools[i].QualifiedName() is "fs.read_file", tools[i].Name()
//	// "fs_read_file"; register them and run the agent loop.
//
// A server is reached over stdio (ConnectCommand, a prepared command that
// has not been started) or streamable HTTP (ConnectURL). Tools and
// Definitions read every page of tools/list, up to MaxTools tools.
//
// Every tool takes the server's name as its source (tools.WithSource), so
// that the tools of several servers in one Registry keep apart by their
// qualified names, "<server>.<tool>". The handler of a tool calls
// tools/call with the tool's own name. The three outcomes stay distinct
// for a caller that looks: a result; an error result of the tool
// (isError), returned as a *ToolError; and a failure of the server or its
// transport, an error wrapping ErrServer that names the server. The
// Registry turns both errors into error results for the model.
package mcp
