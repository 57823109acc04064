package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

func openaiClient(c config) openai.Client {
	return openai.NewClient(option.WithBaseURL(c.base+"/v1/"), option.WithAPIKey("conform-test-key"), option.WithMaxRetries(0))
}

// openaiChat runs the tool turn over Chat Completions with openai-go, the
// stream gathered with its ChatCompletionAccumulator.
func openaiChat(ctx context.Context, c config) (string, error) {
	client := openaiClient(c)
	var tools []openai.ChatCompletionToolUnionParam
	for _, t := range c.tools {
		tools = append(tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        t.Name,
			Description: openai.String(t.Description),
			Parameters:  shared.FunctionParameters(c.schema(t)),
		}))
	}
	params := openai.ChatCompletionNewParams{
		Model:    shared.ChatModel(c.model),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
		Tools:    tools,
	}
	complete := func() (openai.ChatCompletionMessage, error) {
		if !c.stream {
			resp, err := client.Chat.Completions.New(ctx, params)
			if err != nil {
				return openai.ChatCompletionMessage{}, err
			}
			if len(resp.Choices) == 0 {
				return openai.ChatCompletionMessage{}, errors.New("no choices")
			}
			return resp.Choices[0].Message, nil
		}
		stream := client.Chat.Completions.NewStreaming(ctx, params)
		acc := openai.ChatCompletionAccumulator{}
		for stream.Next() {
			acc.AddChunk(stream.Current())
		}
		if err := stream.Err(); err != nil {
			return openai.ChatCompletionMessage{}, err
		}
		if len(acc.Choices) == 0 {
			return openai.ChatCompletionMessage{}, errors.New("no choices in the stream")
		}
		return acc.Choices[0].Message, nil
	}
	msg, err := complete()
	if err != nil {
		return "", err
	}
	if len(msg.ToolCalls) == 0 {
		return msg.Content, nil
	}
	params.Messages = append(params.Messages, msg.ToParam())
	for _, tc := range msg.ToolCalls {
		if err := checkJSON(tc.Function.Name, tc.Function.Arguments); err != nil {
			return "", err
		}
		params.Messages = append(params.Messages, openai.ToolMessage(echo(tc.Function.Arguments), tc.ID))
	}
	final, err := complete()
	if err != nil {
		return "", fmt.Errorf("follow-up: %w", err)
	}
	return final.Content, nil
}

// openaiResponses runs the tool turn over the Responses API, stateless:
// the follow-up repeats the function_call items before their outputs.
func openaiResponses(ctx context.Context, c config) (string, error) {
	client := openaiClient(c)
	var tools []responses.ToolUnionParam
	for _, t := range c.tools {
		tools = append(tools, responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{
			Name:        t.Name,
			Description: openai.String(t.Description),
			Parameters:  c.schema(t),
		}})
	}
	input := []responses.ResponseInputItemUnionParam{responses.ResponseInputItemParamOfMessage(prompt, responses.EasyInputMessageRoleUser)}
	params := responses.ResponseNewParams{Model: shared.ResponsesModel(c.model), Tools: tools}
	complete := func() (*responses.Response, error) {
		params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
		if !c.stream {
			return client.Responses.New(ctx, params)
		}
		stream := client.Responses.NewStreaming(ctx, params)
		var done *responses.Response
		for stream.Next() {
			ev := stream.Current()
			if ev.Type == "response.completed" {
				r := ev.AsResponseCompleted().Response
				done = &r
			}
		}
		if err := stream.Err(); err != nil {
			return nil, err
		}
		if done == nil {
			return nil, errors.New("stream ended without response.completed")
		}
		return done, nil
	}
	resp, err := complete()
	if err != nil {
		return "", err
	}
	var calls int
	for _, item := range resp.Output {
		if item.Type != "function_call" {
			continue
		}
		fc := item.AsFunctionCall()
		if err := checkJSON(fc.Name, fc.Arguments); err != nil {
			return "", err
		}
		calls++
		p := fc.ToParam()
		input = append(input, responses.ResponseInputItemUnionParam{OfFunctionCall: &p})
		out := responses.ResponseInputItemParamOfFunctionCallOutput(echo(fc.Arguments))
		out.OfFunctionCallOutput.CallID = openai.String(fc.CallID)
		input = append(input, out)
	}
	if calls == 0 {
		return resp.OutputText(), nil
	}
	final, err := complete()
	if err != nil {
		return "", fmt.Errorf("follow-up: %w", err)
	}
	return final.OutputText(), nil
}
