package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	ollama "github.com/ollama/ollama/api"
)

// ollamaChat runs the tool turn over /api/chat with Ollama's own client
// (github.com/ollama/ollama/api); a stream's lines are gathered in order,
// each tool call arriving whole.
func ollamaChat(ctx context.Context, c config) (string, error) {
	base, err := url.Parse(c.base)
	if err != nil {
		return "", err
	}
	client := ollama.NewClient(base, http.DefaultClient)
	var tools ollama.Tools
	for _, t := range c.tools {
		raw, err := json.Marshal(map[string]any{"type": "function", "function": map[string]any{"name": t.Name, "description": t.Description, "parameters": c.schema(t)}})
		if err != nil {
			return "", err
		}
		var tool ollama.Tool
		if err := json.Unmarshal(raw, &tool); err != nil {
			return "", fmt.Errorf("tool %s: %w", t.Name, err)
		}
		tools = append(tools, tool)
	}
	stream := c.stream
	req := &ollama.ChatRequest{Model: c.model, Messages: []ollama.Message{{Role: "user", Content: prompt}}, Tools: tools, Stream: &stream}
	complete := func() (ollama.Message, error) {
		msg := ollama.Message{Role: "assistant"}
		err := client.Chat(ctx, req, func(resp ollama.ChatResponse) error {
			msg.Content += resp.Message.Content
			msg.ToolCalls = append(msg.ToolCalls, resp.Message.ToolCalls...)
			return nil
		})
		return msg, err
	}
	msg, err := complete()
	if err != nil {
		return "", err
	}
	if len(msg.ToolCalls) == 0 {
		return msg.Content, nil
	}
	req.Messages = append(req.Messages, msg)
	for _, tc := range msg.ToolCalls {
		args, err := json.Marshal(tc.Function.Arguments)
		if err != nil {
			return "", fmt.Errorf("call %s: %w", tc.Function.Name, err)
		}
		req.Messages = append(req.Messages, ollama.Message{Role: "tool", Content: echo(string(args)), ToolName: tc.Function.Name, ToolCallID: tc.ID})
	}
	final, err := complete()
	if err != nil {
		return "", fmt.Errorf("follow-up: %w", err)
	}
	return final.Content, nil
}
