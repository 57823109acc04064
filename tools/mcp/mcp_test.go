package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/tools"
	"github.com/toolconform/conform/tools/mcp"
	"github.com/toolconform/conform/tools/mcp/internal/testserver"
)

var (
	buildOnce sync.Once
	serverBin string
	buildErr  error
)

// serverCommand builds testdata/server once per test binary and returns a
// command that runs it.
func serverCommand(t *testing.T) *exec.Cmd {
	t.Helper()
	buildOnce.Do(func() {
		serverBin = filepath.Join(binDir, "server")
		out, err := exec.Command("go", "build", "-o", serverBin, "./testdata/server").CombinedOutput()
		if err != nil {
			buildErr = errors.New("go build ./testdata/server: " + err.Error() + "\n" + string(out))
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return exec.Command(serverBin)
}

// connectStdio starts the server program and connects to it.
func connectStdio(t *testing.T) *mcp.Server {
	t.Helper()
	s, err := mcp.ConnectCommand(context.Background(), "local", serverCommand(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// connectHTTP serves the test server over streamable HTTP on 127.0.0.1 in
// this process and connects to it.
func connectHTTP(t *testing.T) *mcp.Server {
	t.Helper()
	return serveHTTP(t, "remote", testserver.New())
}

// serveHTTP serves srv over streamable HTTP on 127.0.0.1 and connects to
// it under name.
func serveHTTP(t *testing.T, name string, srv *sdk.Server) *mcp.Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	s, err := mcp.ConnectURL(context.Background(), name, "http://"+ln.Addr().String()+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestTools lists the tools over both transports (every page: the server
// pages by two) and runs each through a Registry: the call reaches the
// server and its answer comes back; an isError result and bad arguments
// become error results.
func TestTools(t *testing.T) {
	for _, tr := range []struct {
		name    string
		connect func(*testing.T) *mcp.Server
	}{{"stdio", connectStdio}, {"http", connectHTTP}} {
		t.Run(tr.name, func(t *testing.T) {
			s := tr.connect(t)
			ts, err := s.Tools(context.Background(), tools.WithNameMapper(tools.NewNameMapper()))
			if err != nil {
				t.Fatal(err)
			}
			type row struct{ Name, Qualified, Source, Original, Risk string }
			var got []row
			reg := tools.NewRegistry()
			for _, tool := range ts {
				got = append(got, row{tool.Name(), tool.QualifiedName(), tool.Source(), tool.OriginalName(), tool.Risk().String()})
				if err := reg.Add(tool); err != nil {
					t.Fatal(err)
				}
			}
			src := s.Name()
			want := []row{
				{src + "_add", src + ".add", src, "add", "destructive"},
				{src + "_echo", src + ".echo", src, "echo", "read-only"},
				{src + "_exit", src + ".exit", src, "exit", "destructive"},
				{src + "_fail", src + ".fail", src, "fail", "destructive"},
				{src + "_files_read", src + ".files.read", src, "files.read", "destructive"},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("tools (-want +got):\n%s", diff)
			}
			calls := []struct {
				name, args string
				want       core.Result
			}{
				{src + "_echo", `{"text":"hi"}`, result(`{"echo":{"text":"hi"}}`, false)},
				{src + "_files_read", `{"path":"notes.txt"}`, result("contents of notes.txt", false)},
				{src + "_add", `{"a":2,"b":40}`, result(`{"sum":42}`, false)},
				{src + "_fail", `{"why":"disk full"}`, result(`tool "`+src+`_fail" failed: mcp server "`+src+`": tool "fail" returned an error: failed on purpose: disk full`, true)},
				{src + "_add", `{"a":"2"}`, result("", true)},
			}
			for i, c := range calls {
				res := reg.Execute(context.Background(), core.Call{ID: "c", Name: c.name, Arguments: json.RawMessage(c.args)})
				if c.want.Text() == "" { // validation failure: only the flag is checked here
					if !res.IsError || !strings.Contains(res.Text(), "/a") {
						t.Errorf("call %d %s: want an error result naming /a, got %+v", i, c.name, res)
					}
					continue
				}
				c.want.CallID, c.want.Name = "c", c.name
				if diff := cmp.Diff(c.want, res); diff != "" {
					t.Errorf("call %d %s (-want +got):\n%s", i, c.name, diff)
				}
			}
		})
	}
}

func result(text string, isError bool) core.Result {
	return core.Result{Content: []core.Part{core.TextPart(text)}, IsError: isError}
}

// TestServerFailure: a server whose process dies makes the next call an
// error naming the server and wrapping ErrServer, not a tool error.
func TestServerFailure(t *testing.T) {
	s := connectStdio(t)
	ts, err := s.Tools(context.Background(), tools.WithNameMapper(tools.NewNameMapper()))
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	for _, tool := range ts {
		reg.Add(tool)
	}
	res := reg.Execute(context.Background(), core.Call{ID: "1", Name: "local_exit", Arguments: json.RawMessage(`{}`)})
	if !res.IsError || !strings.Contains(res.Text(), `mcp server "local": tools/call "exit"`) {
		t.Fatalf("call to a server that exits: want an error result naming the server, got %+v", res)
	}
	_, err = s.Definitions(context.Background())
	if !errors.Is(err, mcp.ErrServer) || !strings.Contains(err.Error(), `mcp server "local"`) {
		t.Fatalf("tools/list after the server exited: err = %v, want ErrServer naming the server", err)
	}
}

// TestConnectFailure: a command that is not an MCP server fails to
// connect with an error naming the server.
func TestConnectFailure(t *testing.T) {
	_, err := mcp.ConnectCommand(context.Background(), "broken", exec.Command("true"))
	if !errors.Is(err, mcp.ErrServer) || !strings.Contains(err.Error(), `mcp server "broken": connect`) {
		t.Fatalf("err = %v, want ErrServer naming the server", err)
	}
	_, err = mcp.ConnectURL(context.Background(), "nowhere", "http://127.0.0.1:1/mcp", nil)
	if !errors.Is(err, mcp.ErrServer) || !strings.Contains(err.Error(), `mcp server "nowhere": connect`) {
		t.Fatalf("err = %v, want ErrServer naming the server", err)
	}
}

// TestRefusedDefinition: a tool whose schema does not compile is left out
// with an error naming the server, the tool and the JSON pointer; the
// other tools still come back.
func TestRefusedDefinition(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "bad", Version: "1"}, nil)
	none := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{}, nil
	}
	srv.AddTool(&sdk.Tool{Name: "good", InputSchema: json.RawMessage(`{"type":"object"}`)}, none)
	srv.AddTool(&sdk.Tool{Name: "broken", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integr"}}}`)}, none)
	s := serveHTTP(t, "remote", srv)
	ts, err := s.Tools(context.Background(), tools.WithNameMapper(tools.NewNameMapper()))
	if len(ts) != 1 || ts[0].QualifiedName() != "remote.good" {
		t.Errorf("tools = %v, want remote.good only", ts)
	}
	if err == nil || !strings.Contains(err.Error(), `mcp server "remote": tools[0]: tool from mcp "broken"`) || !strings.Contains(err.Error(), "/inputSchema/properties/n/type") {
		t.Errorf("err = %v, want one naming the server, broken and /inputSchema/properties/n/type", err)
	}
}
