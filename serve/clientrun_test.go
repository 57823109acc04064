package serve

import (
	"testing"

	"github.com/toolconform/conform/scenarios"
)

// TestChaosChanges checks which scenarios a chaos variant is run on: only
// streams, and only SSE streams for the options that reframe SSE alone.
func TestChaosChanges(t *testing.T) {
	stream := &scenarios.Scenario{Kind: scenarios.KindStream}
	response := &scenarios.Scenario{Kind: scenarios.KindResponse}
	tests := []struct {
		chaos    Chaos
		sc       *scenarios.Scenario
		protocol string
		want     bool
	}{
		{Chaos{}, stream, "openai-chat", false},
		{Chaos{CRLF: true}, stream, "openai-chat", true},
		{Chaos{Ping: true, KeepAlive: true}, stream, "anthropic", true},
		{Chaos{CRLF: true}, stream, "bedrock", false},
		{Chaos{MultiLine: true}, stream, "ollama", false},
		{Chaos{Split: true, Seed: 2}, stream, "bedrock", true},
		{Chaos{Disconnect: true}, stream, "ollama", true},
		{Chaos{Split: true, Seed: 2}, response, "openai-chat", false},
		{Chaos{Error: true}, response, "anthropic", false},
		{Chaos{CRLF: true}, response, "openai-chat", false},
	}
	for _, tt := range tests {
		if got := ChaosChanges(tt.chaos, tt.sc, tt.protocol); got != tt.want {
			t.Errorf("ChaosChanges(%s, %s, %s) = %v, want %v", tt.chaos, tt.sc.Kind, tt.protocol, got, tt.want)
		}
	}
}
