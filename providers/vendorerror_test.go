package providers

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/core"
)

// TestEveryAdapterReadsVendorErrors checks that every adapter reports the
// error bodies vendors send in place of its protocol's, whole and as the
// body of a streaming request, as provider errors, never as malformed
// input.
func TestEveryAdapterReadsVendorErrors(t *testing.T) {
	bodies := []struct {
		name, body string
		want       core.ProviderError
	}{
		{"mistral detail", `{"detail": "Invalid API Key"}`, core.ProviderError{Message: "Invalid API Key"}},
		{"fastapi validation", `{"detail":[{"loc":["body","model"],"msg":"field required","type":"value_error.missing"}]}`, core.ProviderError{Message: "body.model: field required"}},
		{"xai string error", `{"code":"invalid-argument","error":"Incorrect API key provided: xa***"}`, core.ProviderError{Code: "invalid-argument", Message: "Incorrect API key provided: xa***"}},
		{"aws message", `{"message":"The security token included in the request is invalid."}`, core.ProviderError{Message: "The security token included in the request is invalid."}},
		{"google array", `[{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}]`, core.ProviderError{Code: "400", Message: "API key not valid."}},
		{"errors list", `{"errors":[{"message":"first"},{"message":"second"}]}`, core.ProviderError{Message: "first; second"}},
	}
	for _, a := range All() {
		for _, b := range bodies {
			t.Run(a.Name()+"/"+b.name, func(t *testing.T) {
				resp, err := a.DecodeResponse([]byte(b.body))
				if err != nil {
					t.Fatalf("DecodeResponse: %v", err)
				}
				if resp.Error == nil || resp.Finish != core.FinishError {
					t.Fatalf("DecodeResponse: error %v, finish %q; want a provider error and finish error", resp.Error, resp.Finish)
				}
				if resp.Error.Message != b.want.Message || resp.Error.Code != b.want.Code && resp.Error.Code != "" {
					t.Errorf("DecodeResponse error (-want +got):\n%s", cmp.Diff(b.want, *resp.Error))
				}
				var got *core.ProviderError
				s := a.DecodeStream(strings.NewReader(b.body))
				for range 8 {
					ev, err := s.Next()
					if err != nil {
						break
					}
					if ev.Kind == core.EventError {
						got = ev.Error
					}
				}
				if got == nil || got.Message != b.want.Message {
					t.Errorf("DecodeStream: provider error %v, want message %q", got, b.want.Message)
				}
			})
		}
	}
}
