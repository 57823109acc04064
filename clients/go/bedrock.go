package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
)

// bedrockConverse runs the tool turn over Converse and ConverseStream with
// aws-sdk-go-v2's bedrockruntime, signed with static credentials; a
// stream's blocks are gathered by their index.
func bedrockConverse(ctx context.Context, c config) (string, error) {
	client := bedrockruntime.NewFromConfig(aws.Config{
		Region:           "us-east-1",
		Credentials:      credentials.NewStaticCredentialsProvider("AKIDCONFORM", "conform-test-key", ""),
		HTTPClient:       http.DefaultClient,
		RetryMaxAttempts: 1,
	}, func(o *bedrockruntime.Options) { o.BaseEndpoint = aws.String(c.base) })
	var tools []types.Tool
	for _, t := range c.tools {
		tools = append(tools, &types.ToolMemberToolSpec{Value: types.ToolSpecification{
			Name:        aws.String(t.Name),
			Description: aws.String(t.Description),
			InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(c.schema(t))},
		}})
	}
	var toolConfig *types.ToolConfiguration
	if len(tools) > 0 {
		toolConfig = &types.ToolConfiguration{Tools: tools}
	}
	msgs := []types.Message{{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: prompt}}}}
	complete := func() (types.Message, error) {
		if !c.stream {
			out, err := client.Converse(ctx, &bedrockruntime.ConverseInput{ModelId: aws.String(c.model), Messages: msgs, ToolConfig: toolConfig})
			if err != nil {
				return types.Message{}, err
			}
			m, ok := out.Output.(*types.ConverseOutputMemberMessage)
			if !ok {
				return types.Message{}, errors.New("no output message")
			}
			return m.Value, nil
		}
		out, err := client.ConverseStream(ctx, &bedrockruntime.ConverseStreamInput{ModelId: aws.String(c.model), Messages: msgs, ToolConfig: toolConfig})
		if err != nil {
			return types.Message{}, err
		}
		stream := out.GetStream()
		defer stream.Close()
		return gatherConverse(stream.Events(), stream.Err)
	}
	msg, err := complete()
	if err != nil {
		return "", err
	}
	var results []types.ContentBlock
	for _, b := range msg.Content {
		tu, ok := b.(*types.ContentBlockMemberToolUse)
		if !ok {
			continue
		}
		if tu.Value.Input == nil {
			return "", fmt.Errorf("call %s: no input", aws.ToString(tu.Value.Name))
		}
		args, err := tu.Value.Input.MarshalSmithyDocument()
		if err != nil {
			return "", fmt.Errorf("call %s: %w", aws.ToString(tu.Value.Name), err)
		}
		results = append(results, &types.ContentBlockMemberToolResult{Value: types.ToolResultBlock{
			ToolUseId: tu.Value.ToolUseId,
			Content:   []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: echo(string(args))}},
		}})
	}
	if len(results) == 0 {
		return converseText(msg), nil
	}
	msgs = append(msgs, msg, types.Message{Role: types.ConversationRoleUser, Content: results})
	final, err := complete()
	if err != nil {
		return "", fmt.Errorf("follow-up: %w", err)
	}
	return converseText(final), nil
}

// gatherConverse rebuilds the assistant message of a ConverseStream: text
// and tool-use blocks by index, a tool use's input text parsed once its
// block stops.
func gatherConverse(events <-chan types.ConverseStreamOutput, streamErr func() error) (types.Message, error) {
	type block struct {
		text, input string
		id, name    *string
		tool        bool
	}
	var order []int32
	blocks := map[int32]*block{}
	get := func(i int32) *block {
		if blocks[i] == nil {
			blocks[i] = &block{}
			order = append(order, i)
		}
		return blocks[i]
	}
	for ev := range events {
		switch e := ev.(type) {
		case *types.ConverseStreamOutputMemberContentBlockStart:
			if tu, ok := e.Value.Start.(*types.ContentBlockStartMemberToolUse); ok {
				b := get(aws.ToInt32(e.Value.ContentBlockIndex))
				b.tool, b.id, b.name = true, tu.Value.ToolUseId, tu.Value.Name
			}
		case *types.ConverseStreamOutputMemberContentBlockDelta:
			b := get(aws.ToInt32(e.Value.ContentBlockIndex))
			switch d := e.Value.Delta.(type) {
			case *types.ContentBlockDeltaMemberText:
				b.text += d.Value
			case *types.ContentBlockDeltaMemberToolUse:
				b.input += aws.ToString(d.Value.Input)
			}
		case *types.UnknownUnionMember:
			return types.Message{}, fmt.Errorf("%q is not a ConverseStream event", e.Tag)
		}
	}
	if err := streamErr(); err != nil {
		return types.Message{}, err
	}
	msg := types.Message{Role: types.ConversationRoleAssistant}
	for _, i := range order {
		b := blocks[i]
		if !b.tool {
			if b.text != "" {
				msg.Content = append(msg.Content, &types.ContentBlockMemberText{Value: b.text})
			}
			continue
		}
		if err := checkJSON(aws.ToString(b.name), b.input); err != nil {
			return types.Message{}, err
		}
		input := map[string]any{}
		if b.input != "" {
			if err := json.Unmarshal([]byte(b.input), &input); err != nil {
				return types.Message{}, err
			}
		}
		msg.Content = append(msg.Content, &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{ToolUseId: b.id, Name: b.name, Input: document.NewLazyDocument(input)}})
	}
	return msg, nil
}

// converseText joins a message's text blocks.
func converseText(m types.Message) string {
	var s string
	for _, b := range m.Content {
		if t, ok := b.(*types.ContentBlockMemberText); ok {
			s += t.Value
		}
	}
	return s
}
