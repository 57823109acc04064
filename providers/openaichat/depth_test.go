package openaichat

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
)

// TestDecodeStreamDeepArguments streams a call whose arguments are
// 2,090,000 nested arrays (4.18 MB, under the 4 MiB argument limit) through
// the real decoder and Collect. The repair library recursed once per level
// and overflowed the stack; the call must instead fail with ErrTooDeep,
// naming the limit and the offset.
func TestDecodeStreamDeepArguments(t *testing.T) {
	const depth = 2_090_000
	for _, args := range map[string]string{
		"closed": strings.Repeat("[", depth) + strings.Repeat("]", depth),
		"open":   strings.Repeat("[", depth),
	} {
		events := []string{tc(`[{"index":0,"id":"call_1","type":"function","function":{"name":"sh","arguments":""}}]`)}
		for len(args) > 0 {
			n := min(len(args), 64<<10)
			events = append(events, tc(fmt.Sprintf(`[{"index":0,"function":{"arguments":%q}}]`, args[:n])))
			args = args[n:]
		}
		events = append(events, finish("tool_calls"))
		resp, err := core.Collect(New().DecodeStream(strings.NewReader(sseOf(events...))))
		if !errors.Is(err, core.ErrTooDeep) {
			t.Fatalf("Collect error = %v, want ErrTooDeep", err)
		}
		if want := fmt.Sprintf("more than %d levels", core.MaxDepth); !strings.Contains(err.Error(), want) {
			t.Errorf("Collect error = %v, want it to name the limit (%q)", err, want)
		}
		if len(resp.Calls()) != 0 || len(resp.Incomplete) != 1 || resp.Incomplete[0].ID != "call_1" {
			t.Errorf("calls %v, incomplete %d, want call_1 incomplete only", resp.Calls(), len(resp.Incomplete))
		}
	}
}
