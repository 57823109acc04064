package cassettes

import (
	"strings"
	"unicode"
)

// credentialStems are the parts of a word that make a name a credential's:
// any header, parameter or field whose name has a word holding one of them
// is redacted, unless the allow-lists below say the name is harmless.
var credentialStems = []string{"key", "token", "secret", "passw", "pwd", "auth", "credential", "signature", "cookie", "bearer"}

// harmlessWords are words that hold a stem but name no credential: token
// counts ("max_tokens", "x-ratelimit-remaining-tokens"), authors, words
// that merely contain "key".
var harmlessWords = map[string]bool{
	"tokens": true, "tokenizer": true, "tokenized": true, "tokenization": true,
	"author": true, "authors": true, "authored": true, "authoring": true, "authority": true, "authenticate": true,
	"keyword": true, "keywords": true, "keyboard": true, "keynote": true, "keystroke": true, "keystrokes": true,
	"keyframe": true, "keyframes": true, "monkey": true, "turkey": true, "donkey": true, "hockey": true,
	"jockey": true, "whiskey": true, "keypoint": true, "keypoints": true,
}

// harmlessLast are last words of harmless names: a name that only counts,
// types or describes a credential ("promptTokenCount", "credentialType",
// "auth_method", "token_limit", "key_name") holds none.
var harmlessLast = map[string]bool{
	"count": true, "counts": true, "type": true, "types": true, "kind": true, "limit": true, "limits": true,
	"remaining": true, "reset": true, "details": true, "usage": true, "mode": true, "method": true,
	"methods": true, "scheme": true, "format": true, "length": true, "size": true, "index": true, "name": true,
	"url": true, "uri": true, "endpoint": true, "required": true, "enabled": true, "expiry": true,
	"expires": true, "expiration": true, "ttl": true, "budget": true, "estimate": true,
}

// harmlessBefore are words that, right before "key" or "token", make a
// name of something else: a page token, a cache or idempotency key, a
// primary or sort key, a public key.
var harmlessBefore = map[string]bool{
	"page": true, "cache": true, "idempotency": true, "partition": true, "sort": true, "primary": true,
	"foreign": true, "object": true, "public": true, "group": true, "map": true, "dedup": true, "dedupe": true,
	"routing": true, "lookup": true, "continuation": true, "cursor": true, "row": true, "hash": true,
	"range": true, "dict": true, "property": true, "field": true, "unique": true, "composite": true,
	"thought": true, // Gemini's thoughtSignature
}

// harmlessInJSON are names that are ordinary JSON fields of the protocols
// though they hold a stem: a logprob's "token", a thinking block's
// "signature", a map entry's "key"; a JSON body keeps them.
var harmlessInJSON = map[string]bool{"key": true, "token": true, "sig": true, "signature": true, "auth": true}

// nameWords splits a name into lower-case words at separators ('-', '_',
// '.', spaces, ':', '/') and where a lower-case letter or digit meets an
// upper-case one ("promptTokenCount" is prompt, token, count).
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, r := range name {
		switch {
		case r == '-' || r == '_' || r == '.' || r == ' ' || r == ':' || r == '/':
			flush()
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			flush()
		}
		cur = append(cur, r)
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	flush()
	return words
}

// credentialName reports whether a header, parameter or field called name
// holds a credential. It does when its normalised name is one of
// secretNames or ends in one of secretSuffixes, or when one of its words
// holds a credential stem (key, token, secret, password, auth, credential,
// signature, cookie, bearer) and the name is not harmless: the word is one
// of harmlessWords, the last word counts or describes (harmlessLast), or
// the word before is one of harmlessBefore. In JSON (inJSON) the bare
// names of harmlessInJSON are kept too.
func credentialName(name string, inJSON bool) bool {
	n := normName(name)
	if inJSON && harmlessInJSON[n] {
		return false
	}
	if secretNames[n] {
		return true
	}
	for _, s := range secretSuffixes {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	words := nameWords(name)
	if len(words) == 0 || harmlessLast[words[len(words)-1]] && len(words) > 1 {
		return false
	}
	if inJSON && len(words) == 2 && harmlessBefore[words[0]] && harmlessInJSON[words[1]] {
		return false // thoughtSignature
	}
	for k, w := range words {
		if harmlessWords[w] || !hasStem(w) {
			continue
		}
		if k > 0 && harmlessBefore[words[k-1]] {
			continue
		}
		return true
	}
	return false
}

// hasStem reports whether a word holds a credential stem.
func hasStem(w string) bool {
	for _, s := range credentialStems {
		if strings.Contains(w, s) {
			return true
		}
	}
	return w == "sig"
}
