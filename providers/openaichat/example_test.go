package openaichat_test

import (
	"fmt"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/openaichat"
)

// A streamed Chat Completions body decoded one event at a time and
// collected into calls by the core Buffer.
func ExampleAdapter_DecodeStream() {
	body := `data: {"id":"chatcmpl-1","model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}

data: {"id":"chatcmpl-1","model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"Paris\"}"}}]}}]}

data: {"id":"chatcmpl-1","model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]

`
	resp, err := core.Collect(openaichat.New().DecodeStream(strings.NewReader(body)))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range resp.Calls() {
		fmt.Println(c.ID, c.Name, string(c.Arguments))
	}
	fmt.Println(resp.Finish)
	// Output:
	// call_1 get_weather {"city":"Paris"}
	// tool_calls
}

// StrictSchema closes every object and makes optional properties nullable,
// as OpenAI strict mode requires.
func ExampleStrictSchema() {
	s, err := openaichat.StrictSchema([]byte(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(s))
	// Output:
	// {"additionalProperties":false,"properties":{"city":{"type":"string"},"days":{"type":["integer","null"]}},"required":["city","days"],"type":"object"}
}
