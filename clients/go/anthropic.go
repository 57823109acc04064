package main

import (
	"context"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
)

// anthropicMessages runs the tool turn over the Messages API with
// anthropic-sdk-go, the stream gathered with Message.Accumulate.
func anthropicMessages(ctx context.Context, c config) (string, error) {
	client := anthropic.NewClient(option.WithBaseURL(c.base+"/"), option.WithAPIKey("conform-test-key"), option.WithMaxRetries(0))
	var tools []anthropic.ToolUnionParam
	for _, t := range c.tools {
		s := c.schema(t)
		schema := anthropic.ToolInputSchemaParam{Properties: s["properties"], ExtraFields: map[string]any{}}
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if name, ok := r.(string); ok {
					schema.Required = append(schema.Required, name)
				}
			}
		}
		tu := anthropic.ToolUnionParamOfTool(schema, t.Name)
		tu.OfTool.Description = anthropic.String(t.Description)
		tools = append(tools, tu)
	}
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(c.model),
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))},
		Tools:     tools,
	}
	complete := func() (*anthropic.Message, error) {
		if !c.stream {
			return client.Messages.New(ctx, params)
		}
		stream := client.Messages.NewStreaming(ctx, params)
		msg := &anthropic.Message{}
		for stream.Next() {
			if err := msg.Accumulate(stream.Current()); err != nil {
				return nil, err
			}
		}
		if err := stream.Err(); err != nil {
			return nil, err
		}
		return msg, nil
	}
	text := func(m *anthropic.Message) string {
		var s string
		for _, b := range m.Content {
			if b.Type == "text" {
				s += b.Text
			}
		}
		return s
	}
	msg, err := complete()
	if err != nil {
		return "", err
	}
	var results []anthropic.ContentBlockParamUnion
	for _, b := range msg.Content {
		if b.Type != "tool_use" {
			continue
		}
		if err := checkJSON(b.Name, string(b.Input)); err != nil {
			return "", err
		}
		results = append(results, anthropic.NewToolResultBlock(b.ID, echo(string(b.Input)), false))
	}
	if len(results) == 0 {
		return text(msg), nil
	}
	params.Messages = append(params.Messages, msg.ToParam(), anthropic.NewUserMessage(results...))
	final, err := complete()
	if err != nil {
		return "", fmt.Errorf("follow-up: %w", err)
	}
	return text(final), nil
}
