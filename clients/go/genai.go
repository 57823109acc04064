package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"google.golang.org/genai"
)

// genaiGemini runs the tool turn over Gemini generateContent with
// google.golang.org/genai; a stream's parts are gathered in order, so the
// model turn goes back with its thought signatures.
func genaiGemini(ctx context.Context, c config) (string, error) {
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:      "conform-test-key",
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: c.base + "/"},
	})
	if err != nil {
		return "", err
	}
	var decls []*genai.FunctionDeclaration
	for _, t := range c.tools {
		decls = append(decls, &genai.FunctionDeclaration{Name: t.Name, Description: t.Description, ParametersJsonSchema: c.schema(t)})
	}
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{{FunctionDeclarations: decls}}}
	contents := []*genai.Content{genai.NewContentFromText(prompt, genai.RoleUser)}
	complete := func() (*genai.Content, error) {
		if !c.stream {
			resp, err := client.Models.GenerateContent(ctx, c.model, contents, cfg)
			if err != nil {
				return nil, err
			}
			if len(resp.Candidates) == 0 || resp.Candidates[0].Content == nil {
				return nil, errors.New("no candidate content")
			}
			return resp.Candidates[0].Content, nil
		}
		turn := &genai.Content{Role: genai.RoleModel}
		for resp, err := range client.Models.GenerateContentStream(ctx, c.model, contents, cfg) {
			if err != nil {
				return nil, err
			}
			if len(resp.Candidates) > 0 && resp.Candidates[0].Content != nil {
				turn.Parts = append(turn.Parts, resp.Candidates[0].Content.Parts...)
			}
		}
		return turn, nil
	}
	text := func(ct *genai.Content) string {
		var s string
		for _, p := range ct.Parts {
			if p.Text != "" && !p.Thought {
				s += p.Text
			}
		}
		return s
	}
	turn, err := complete()
	if err != nil {
		return "", err
	}
	var results []*genai.Part
	for _, p := range turn.Parts {
		if p.FunctionCall == nil {
			continue
		}
		fc := p.FunctionCall
		args, err := json.Marshal(fc.Args)
		if err != nil {
			return "", fmt.Errorf("call %s: %w", fc.Name, err)
		}
		var echoed map[string]any
		json.Unmarshal([]byte(echo(string(args))), &echoed)
		if echoed == nil {
			echoed = map[string]any{}
		}
		results = append(results, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: fc.ID, Name: fc.Name, Response: echoed}})
	}
	if len(results) == 0 {
		return text(turn), nil
	}
	turn.Role = genai.RoleModel
	contents = append(contents, turn, genai.NewContentFromParts(results, genai.RoleUser))
	final, err := complete()
	if err != nil {
		return "", fmt.Errorf("follow-up: %w", err)
	}
	return text(final), nil
}
