package serve

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestAnthropicThread runs a tool turn over an Anthropic message thread:
// the continuation carries only the tool results and is graded against the
// stored conversation.
func TestAnthropicThread(t *testing.T) {
	const name = "anthropic/streaming/A19-interleaved-content-blocks"
	s, ts := newServer(t, Options{Scenario: name})
	post := func(body string) (int, []byte) {
		req, _ := http.NewRequest("POST", ts.URL+"/v1/messages", strings.NewReader(body))
		req.Header.Set("anthropic-beta", ThreadsBeta)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, data
	}
	status, data := post(`{"model":"m","max_tokens":100,"thread":{"type":"create"},"tools":[{"name":"get_weather","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"hi"}]}`)
	if status != 200 {
		t.Fatalf("create: status %d: %s", status, data)
	}
	var first struct {
		ID      string `json:"id"`
		Content []struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		} `json:"content"`
	}
	if err := json.Unmarshal(data, &first); err != nil || first.ID == "" {
		t.Fatalf("create: %v: %s", err, data)
	}
	var results []string
	var ids []string
	for _, b := range first.Content {
		if b.Type == "tool_use" {
			ids = append(ids, b.ID)
			results = append(results, fmt.Sprintf(`{"type":"tool_result","tool_use_id":%q,"content":"ok"}`, b.ID))
		}
	}
	if len(ids) != 2 {
		t.Fatalf("create: %d tool_use blocks, want 2: %s", len(ids), data)
	}
	cont := func(prev string, res []string) (int, []byte) {
		return post(fmt.Sprintf(`{"model":"m","max_tokens":100,"thread":{"type":"continue","previous_message_id":%q},"messages":[{"role":"user","content":[%s]}]}`, prev, strings.Join(res, ",")))
	}
	if status, data := cont("msg_unknown", results); status != 404 || !strings.Contains(string(data), "not found") {
		t.Errorf("unknown thread: status %d: %s", status, data)
	}
	status, data = cont(first.ID, results)
	if status != 200 {
		t.Fatalf("continue: status %d: %s", status, data)
	}
	v, _ := s.Verdict(name)
	if !v.Graded || len(v.Problems) != 0 {
		t.Errorf("continue in order: verdict %+v", v)
	}
	// Results in completion order break G05, through the thread too.
	status, data = cont(first.ID, []string{results[1], results[0]})
	if status != 200 {
		t.Fatalf("continue reversed: status %d: %s", status, data)
	}
	v, _ = s.Verdict(name)
	if len(v.Problems) != 1 || v.Problems[0].Rule != "G05" {
		t.Errorf("continue reversed: problems %v, want one G05", v.Problems)
	}
	if status, data := post(`{"model":"m","max_tokens":1,"thread":{"type":"resume"},"messages":[]}`); status != 400 || !strings.Contains(string(data), "thread.type") {
		t.Errorf("bad thread type: status %d: %s", status, data)
	}
}
