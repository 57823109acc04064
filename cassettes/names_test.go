package cassettes

import "testing"

// TestCredentialNames checks the name rule on the credential names of
// issue 28 and on the harmless names of LLM traffic that hold a stem:
// token counts, rate-limit headers, thinking signatures, logprob tokens,
// page tokens, cache keys and tool arguments such as "keyword".
func TestCredentialNames(t *testing.T) {
	secret := []string{
		"X-Access-Key", "X-Functions-Key", "x-portkey-virtual-key", "api-key", "api_key", "apiKey", "APIKEY",
		"x-api-key", "X-Goog-Api-Key", "Ocp-Apim-Subscription-Key", "Authorization", "X-Authentication",
		"password", "db_password", "passwd", "client_secret", "AWS_SECRET_ACCESS_KEY", "aws_session_token",
		"accessKeyId", "SecretAccessKey", "SessionToken", "X-Amz-Security-Token", "X-Csrf-Token", "refresh_token",
		"id_token", "access_token", "private_key", "credential", "credentials", "X-Upstream-Credential",
		"x-amz-signature", "Cookie", "set-cookie", "virtual_key", "accessKey", "secret", "bearer", "oauth_token",
		"signing_secret", "master-key", "x-ms-token-aad-id-token",
	}
	harmless := []string{
		"max_tokens", "max_completion_tokens", "max_output_tokens", "maxOutputTokens", "input_tokens",
		"output_tokens", "total_tokens", "prompt_tokens", "completion_tokens", "cached_tokens", "reasoning_tokens",
		"cache_creation_input_tokens", "cache_read_input_tokens", "prompt_tokens_details", "inputTokens",
		"promptTokenCount", "candidatesTokenCount", "totalTokenCount", "thoughtsTokenCount", "tokenCount",
		"budget_tokens", "num_tokens", "Num_tokens", "x-ratelimit-limit-tokens", "X-Ratelimit-Remaining-Tokens",
		"x-ratelimit-reset-tokens", "anthropic-ratelimit-input-tokens-remaining", "anthropic-ratelimit-tokens-reset",
		"tool_choice", "credentialType", "auth_method", "author", "authors", "keyword", "keywords", "keep_alive",
		"Keep-Alive", "next_page_token", "page_token", "nextPageToken", "prompt_cache_key", "idempotency_key",
		"public_key", "primary_key", "thoughtSignature", "tokenizer", "top_k", "topK", "monkey", "token_limit",
		"Www-Authenticate", "key_name", "content", "arguments", "finish_reason",
	}
	for _, n := range secret {
		if !credentialName(n, false) || !credentialName(n, true) {
			t.Errorf("%q: credentialName = %v in headers, %v in JSON; want true", n, credentialName(n, false), credentialName(n, true))
		}
	}
	for _, n := range harmless {
		if credentialName(n, false) || credentialName(n, true) {
			t.Errorf("%q: credentialName = %v in headers, %v in JSON; want false", n, credentialName(n, false), credentialName(n, true))
		}
	}
	for _, n := range []string{"key", "token", "signature", "sig", "auth"} {
		if credentialName(n, true) {
			t.Errorf("%q is an ordinary JSON field, but credentialName(%q, true) = true", n, n)
		}
		if !credentialName(n, false) {
			t.Errorf("%q names a credential in a header or query, but credentialName(%q, false) = false", n, n)
		}
	}
}
