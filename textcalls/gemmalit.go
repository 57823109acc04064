package textcalls

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/toolconform/conform/core"
)

// errTooDeepText reports nesting in a call's text deeper than a parser
// follows.
var errTooDeepText = fmt.Errorf("call nesting %w", core.ErrTooDeep)

// gemmaLiteral writes JSON arguments in Gemma's notation: unquoted keys,
// strings between quote tokens.
func gemmaLiteral(args json.RawMessage, quote string) (string, error) {
	if len(args) == 0 {
		return "{}", nil
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(args)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	var b strings.Builder
	if err := writeGemma(&b, v, quote, 0); err != nil {
		return "", err
	}
	return b.String(), nil
}

func writeGemma(b *strings.Builder, v any, quote string, depth int) error {
	if depth > core.MaxDepth {
		return core.ErrTooDeep
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			if strings.ContainsAny(k, ":,{}[] ") || strings.Contains(k, quote) {
				return fmt.Errorf("key %q cannot be written unquoted", k)
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(k + ":")
			if err := writeGemma(b, x[k], quote, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeGemma(b, e, quote, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case string:
		if strings.Contains(x, quote) {
			return errors.New("a string holds the quote token")
		}
		b.WriteString(quote + x + quote)
	case json.Number:
		b.WriteString(x.String())
	case bool:
		fmt.Fprint(b, x)
	case nil:
		b.WriteString("null")
	}
	return nil
}
