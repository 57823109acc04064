// Command server is the MCP server of the tools/mcp tests, over stdio.
package main

import (
	"context"
	"fmt"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolconform/conform/tools/mcp/internal/testserver"
)

func main() {
	if err := testserver.New().Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}
