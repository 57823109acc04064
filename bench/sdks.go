package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	bedrocktypes "github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	ollamaapi "github.com/ollama/ollama/api"
	"google.golang.org/genai"

	"github.com/toolconform/conform/core"
)

// The official SDKs of Gemini and Bedrock build their stream
// readers only from an HTTP response to a request they make themselves:
// none exports a decoder that takes an io.Reader. Each is driven as its
// documentation shows, through a client whose transport is a memTransport
// that answers with the recorded body; so the SDK's request building
// (and, for Bedrock, SigV4 signing) is measured with it, and no socket is.
// ConformHTTP gives conform the same path, so that the ratios to these
// SDKs compare like with like.

// ConformHTTP is Conform reached the way the SDK subjects are: an
// http.Client whose transport is a memTransport sends one POST, and the
// adapter's DecodeStream reads the response body.
func ConformHTTP(a core.Adapter, contentType string) RunFunc {
	tr := &memTransport{contentType: contentType}
	client := &http.Client{Transport: tr}
	decode := func(r io.Reader) core.EventStream { return a.DecodeStream(r) }
	return func(dst []Call, body []byte) ([]Call, error) {
		tr.body = body
		resp, err := client.Post("http://bench.invalid/v1/stream", "application/json", nil)
		if err != nil {
			return dst, fmt.Errorf("conform-http %s: %w", a.Name(), err)
		}
		defer resp.Body.Close()
		return collect(dst, a.Name(), decode(resp.Body))
	}
}

// Genai returns the google.golang.org/genai subject: a Gemini API client
// whose HTTP client answers from memory, Models.GenerateContentStream
// (which asks for alt=sse), and every functionCall part of the first
// candidate taken as one whole call, its args encoded with json.Marshal,
// as the naive decoder does. Automatic continuation is off, so a stream
// is one request.
func Genai() RunFunc {
	tr := &memTransport{}
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      "bench",
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  &http.Client{Transport: tr},
		HTTPOptions: genai.HTTPOptions{BaseURL: "http://bench.invalid/"},
	})
	config := &genai.GenerateContentConfig{AutomaticContinuation: genai.Ptr(false)}
	contents := genai.Text("go")
	return func(calls []Call, body []byte) ([]Call, error) {
		if err != nil {
			return calls, fmt.Errorf("genai: %w", err)
		}
		tr.body = body
		for resp, err := range client.Models.GenerateContentStream(context.Background(), "gemini-2.5-flash", contents, config) {
			if err != nil {
				return calls, fmt.Errorf("genai: %w", err)
			}
			if len(resp.Candidates) == 0 || resp.Candidates[0].Content == nil {
				continue
			}
			for _, part := range resp.Candidates[0].Content.Parts {
				fc := part.FunctionCall
				if fc == nil || fc.Name == "" {
					continue
				}
				args := []byte("{}")
				if fc.Args != nil {
					if args, err = json.Marshal(fc.Args); err != nil {
						return calls, fmt.Errorf("genai: %w", err)
					}
				}
				calls = append(calls, Call{ID: fc.ID, Name: fc.Name, Args: argsText(args)})
			}
		}
		return calls, nil
	}
}

// OllamaClient returns the github.com/ollama/ollama/api subject, Ollama's
// own Go client: a Client whose http.Client answers from memory with the
// NDJSON body, Chat with a callback that takes every tool call of each
// ChatResponse as one whole call, its arguments encoded with json.Marshal
// (the client keeps them as an ordered map).
func OllamaClient() RunFunc {
	tr := &memTransport{contentType: "application/x-ndjson"}
	client := ollamaapi.NewClient(&url.URL{Scheme: "http", Host: "bench.invalid"}, &http.Client{Transport: tr})
	stream := true
	req := &ollamaapi.ChatRequest{Model: "qwen3:8b", Messages: []ollamaapi.Message{{Role: "user", Content: "go"}}, Stream: &stream}
	return func(calls []Call, body []byte) ([]Call, error) {
		tr.body = body
		err := client.Chat(context.Background(), req, func(resp ollamaapi.ChatResponse) error {
			for _, tc := range resp.Message.ToolCalls {
				args, err := json.Marshal(tc.Function.Arguments)
				if err != nil {
					return err
				}
				calls = append(calls, Call{ID: tc.ID, Name: tc.Function.Name, Args: argsText(args)})
			}
			return nil
		})
		if err != nil {
			return calls, fmt.Errorf("ollama: %w", err)
		}
		return calls, nil
	}
}

// BedrockSDK returns the aws-sdk-go-v2 subject: a bedrockruntime client
// with static credentials, a base endpoint and an HTTP client that answers
// from memory with the recorded AWS event-stream body. A recorded
// InvokeModelWithResponseStream body (its frames carry {"bytes": base64})
// is read with InvokeModelWithResponseStream, each chunk's payload, an
// Anthropic stream event, decoded with encoding/json into a map as the
// naive Anthropic decoder does (the SDK leaves the payload to the caller);
// any other body with ConverseStream, the calls rebuilt from its tool-use
// contentBlockStart and contentBlockDelta events by block index. Each
// request is serialised and SigV4-signed, as the SDK does for every call.
func BedrockSDK() RunFunc {
	tr := &memTransport{contentType: "application/vnd.amazon.eventstream"}
	client := bedrockruntime.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDBENCH", "bench", ""),
		HTTPClient:  &http.Client{Transport: tr},
	}, func(o *bedrockruntime.Options) { o.BaseEndpoint = aws.String("http://bench.invalid") })
	model := aws.String("anthropic.claude-haiku-4-5")
	converse := &bedrockruntime.ConverseStreamInput{
		ModelId:  model,
		Messages: []bedrocktypes.Message{{Role: bedrocktypes.ConversationRoleUser, Content: []bedrocktypes.ContentBlock{&bedrocktypes.ContentBlockMemberText{Value: "go"}}}},
	}
	invoke := &bedrockruntime.InvokeModelWithResponseStreamInput{
		ModelId:     model,
		ContentType: aws.String("application/json"),
		Body:        []byte(`{"anthropic_version":"bedrock-2023-05-31","max_tokens":64,"messages":[{"role":"user","content":"go"}]}`),
	}
	return func(dst []Call, body []byte) ([]Call, error) {
		tr.body = body
		if bytes.Contains(body, []byte(`{"bytes":`)) {
			return bedrockInvoke(dst, client, invoke)
		}
		return bedrockConverse(dst, client, converse)
	}
}

// bedrockConverse reads one ConverseStream response.
func bedrockConverse(dst []Call, client *bedrockruntime.Client, input *bedrockruntime.ConverseStreamInput) ([]Call, error) {
	out, err := client.ConverseStream(context.Background(), input)
	if err != nil {
		return nil, fmt.Errorf("aws-sdk-go-v2: %w", err)
	}
	stream := out.GetStream()
	defer stream.Close()
	var acc accumulator[int32]
	for ev := range stream.Events() {
		switch e := ev.(type) {
		case *bedrocktypes.ConverseStreamOutputMemberContentBlockStart:
			if tu, ok := e.Value.Start.(*bedrocktypes.ContentBlockStartMemberToolUse); ok {
				acc.open(aws.ToInt32(e.Value.ContentBlockIndex), aws.ToString(tu.Value.ToolUseId), aws.ToString(tu.Value.Name))
			}
		case *bedrocktypes.ConverseStreamOutputMemberContentBlockDelta:
			if tu, ok := e.Value.Delta.(*bedrocktypes.ContentBlockDeltaMemberToolUse); ok {
				acc.add(aws.ToInt32(e.Value.ContentBlockIndex), aws.ToString(tu.Value.Input))
			}
		case *bedrocktypes.UnknownUnionMember:
			return nil, fmt.Errorf("aws-sdk-go-v2: %q is not a ConverseStream event", e.Tag)
		}
	}
	if err := stream.Err(); err != nil {
		return nil, fmt.Errorf("aws-sdk-go-v2: %w", err)
	}
	return acc.calls(dst), nil
}

// bedrockInvoke reads one InvokeModelWithResponseStream response of an
// Anthropic model.
func bedrockInvoke(dst []Call, client *bedrockruntime.Client, input *bedrockruntime.InvokeModelWithResponseStreamInput) ([]Call, error) {
	out, err := client.InvokeModelWithResponseStream(context.Background(), input)
	if err != nil {
		return nil, fmt.Errorf("aws-sdk-go-v2: %w", err)
	}
	stream := out.GetStream()
	defer stream.Close()
	var acc accumulator[int]
	for ev := range stream.Events() {
		chunk, ok := ev.(*bedrocktypes.ResponseStreamMemberChunk)
		if !ok {
			return nil, fmt.Errorf("aws-sdk-go-v2: %T is not a chunk event", ev)
		}
		var m map[string]any
		if err := json.Unmarshal(chunk.Value.Bytes, &m); err != nil {
			return nil, fmt.Errorf("aws-sdk-go-v2: chunk payload: %w", err)
		}
		anthropicEvent(&acc, m)
	}
	if err := stream.Err(); err != nil {
		return nil, fmt.Errorf("aws-sdk-go-v2: %w", err)
	}
	return acc.calls(dst), nil
}
