// Command conform-client-go is a conform client program (see
// docs/client-protocol.md) for Go SDKs, chosen with -sdk:
//
//	openai-go            github.com/openai/openai-go/v3, Chat Completions
//	openai-go-responses  github.com/openai/openai-go/v3, Responses
//	anthropic-sdk-go     github.com/anthropics/anthropic-sdk-go, Messages
//	go-openai            github.com/sashabaranov/go-openai, Chat Completions
//	genai                google.golang.org/genai, Gemini generateContent
//	aws-sdk-go-v2        github.com/aws/aws-sdk-go-v2/service/bedrockruntime, Converse
//	ollama               github.com/ollama/ollama/api, /api/chat
//
// It makes the request conform serve expects, runs every call with the
// echo tool (the result is the call's arguments), sends the follow-up,
// prints the final answer and exits 0; any error exits 1. It talks HTTP
// only and imports nothing of conform; its test (sdk_test.go) runs every
// SDK against conform serve in process.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"
)

// tool is one entry of CONFORM_TOOLS.
type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// config is what the environment says.
type config struct {
	base, model string
	stream      bool
	tools       []tool
}

func (c config) schema(t tool) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(t.InputSchema, &m); err != nil || m == nil {
		m = map[string]any{"type": "object"}
	}
	return m
}

const prompt = "Use the tools."

var sdks = map[string]func(ctx context.Context, c config) (string, error){
	"openai-go":           openaiChat,
	"openai-go-responses": openaiResponses,
	"anthropic-sdk-go":    anthropicMessages,
	"go-openai":           goOpenAI,
	"genai":               genaiGemini,
	"aws-sdk-go-v2":       bedrockConverse,
	"ollama":              ollamaChat,
}

func main() {
	sdk := flag.String("sdk", "", "the SDK to use: openai-go, openai-go-responses, anthropic-sdk-go, go-openai, genai, aws-sdk-go-v2, ollama")
	flag.Parse()
	run, ok := sdks[*sdk]
	if !ok {
		fmt.Fprintf(os.Stderr, "conform-client-go: unknown -sdk %q\n", *sdk)
		os.Exit(2)
	}
	c := config{base: os.Getenv("CONFORM_BASE_URL"), model: os.Getenv("CONFORM_MODEL"), stream: os.Getenv("CONFORM_STREAM") == "1"}
	if c.base == "" {
		fmt.Fprintln(os.Stderr, "conform-client-go: CONFORM_BASE_URL is not set")
		os.Exit(2)
	}
	if err := json.Unmarshal([]byte(os.Getenv("CONFORM_TOOLS")), &c.tools); err != nil {
		fmt.Fprintf(os.Stderr, "conform-client-go: CONFORM_TOOLS: %v\n", err)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	answer, err := run(ctx, c)
	if err != nil {
		fmt.Fprintf(os.Stderr, "conform-client-go %s: %v\n", *sdk, err)
		os.Exit(1)
	}
	fmt.Println(answer)
}

// echo is the trivial tool of the client protocol: the result is the
// arguments as received.
func echo(args string) string {
	if args == "" {
		return "{}"
	}
	return args
}

// checkJSON refuses arguments that are not a JSON object: such a call was
// cut off or garbled and must not run.
func checkJSON(name, args string) error {
	if args == "" {
		return nil
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		return fmt.Errorf("call %s: arguments are not a JSON object (%v); not running it", name, err)
	}
	return nil
}
