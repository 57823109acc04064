package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	goopenai "github.com/sashabaranov/go-openai"
)

// goOpenAI runs the tool turn over Chat Completions with
// sashabaranov/go-openai, which has no stream accumulator: the deltas are
// gathered here by index, as its README shows, each index keyed to the call
// it first appeared on; a delta without an index continues the last call
// when it has no id and starts a new call when it has one.
func goOpenAI(ctx context.Context, c config) (string, error) {
	cfg := goopenai.DefaultConfig("conform-test-key")
	cfg.BaseURL = c.base + "/v1"
	client := goopenai.NewClientWithConfig(cfg)
	var tools []goopenai.Tool
	for _, t := range c.tools {
		tools = append(tools, goopenai.Tool{Type: goopenai.ToolTypeFunction, Function: &goopenai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: c.schema(t),
		}})
	}
	req := goopenai.ChatCompletionRequest{
		Model:    c.model,
		Messages: []goopenai.ChatCompletionMessage{{Role: goopenai.ChatMessageRoleUser, Content: prompt}},
		Tools:    tools,
		Stream:   c.stream,
	}
	complete := func() (goopenai.ChatCompletionMessage, error) {
		if !c.stream {
			resp, err := client.CreateChatCompletion(ctx, req)
			if err != nil {
				return goopenai.ChatCompletionMessage{}, err
			}
			if len(resp.Choices) == 0 {
				return goopenai.ChatCompletionMessage{}, errors.New("no choices")
			}
			return resp.Choices[0].Message, nil
		}
		stream, err := client.CreateChatCompletionStream(ctx, req)
		if err != nil {
			return goopenai.ChatCompletionMessage{}, err
		}
		defer stream.Close()
		msg := goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleAssistant}
		// pos maps a delta's index to its call's place in msg.ToolCalls:
		// the index is a routing key (it may be -1, as on Bedrock's
		// endpoint, or skip numbers), not a position.
		pos := map[int]int{}
		for {
			chunk, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return goopenai.ChatCompletionMessage{}, err
			}
			// Only choice 0 is read: a request for one choice that gets
			// more (n > 1, A13) must not merge them.
			ci := slices.IndexFunc(chunk.Choices, func(c goopenai.ChatCompletionStreamChoice) bool { return c.Index == 0 })
			if ci < 0 {
				continue
			}
			d := chunk.Choices[ci].Delta
			msg.Content += d.Content
			for _, tc := range d.ToolCalls {
				i, ok := len(msg.ToolCalls), false
				switch {
				case tc.Index == nil && tc.ID == "" && len(msg.ToolCalls) > 0:
					// No index and no id: a continuation of the last call.
					i, ok = len(msg.ToolCalls)-1, true
				case tc.Index != nil:
					i, ok = pos[*tc.Index]
					if !ok {
						i = len(msg.ToolCalls)
						pos[*tc.Index] = i
					}
				}
				if !ok {
					msg.ToolCalls = append(msg.ToolCalls, goopenai.ToolCall{Type: goopenai.ToolTypeFunction})
				}
				if tc.ID != "" {
					msg.ToolCalls[i].ID = tc.ID
				}
				if tc.Function.Name != "" {
					msg.ToolCalls[i].Function.Name = tc.Function.Name
				}
				msg.ToolCalls[i].Function.Arguments += tc.Function.Arguments
			}
		}
		return msg, nil
	}
	msg, err := complete()
	if err != nil {
		return "", err
	}
	if len(msg.ToolCalls) == 0 {
		return msg.Content, nil
	}
	msg.Role = goopenai.ChatMessageRoleAssistant
	req.Messages = append(req.Messages, msg)
	for _, tc := range msg.ToolCalls {
		if err := checkJSON(tc.Function.Name, tc.Function.Arguments); err != nil {
			return "", err
		}
		req.Messages = append(req.Messages, goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleTool, ToolCallID: tc.ID, Content: echo(tc.Function.Arguments)})
	}
	final, err := complete()
	if err != nil {
		return "", fmt.Errorf("follow-up: %w", err)
	}
	return final.Content, nil
}
