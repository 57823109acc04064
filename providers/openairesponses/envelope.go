package openairesponses

import (
	"github.com/toolconform/conform/providers/internal/jsonscan"
)

// The envelope events (response.created, response.in_progress,
// output_item.added and .done, function_call_arguments.done,
// response.completed) are few per stream but large: each created,
// in_progress and completed event repeats the whole response, with its
// instructions and tools. scan decodes them without encoding/json into the
// stream's reused streamEvent, which handle then applies as it applies
// one json.Unmarshal decoded.

// The json names of streamEvent (and sequence_number, which scan skips),
// wireResponse, wireItem, wireUsage, wireSummary and the incomplete
// details, in the order scan numbers them.
var (
	scanEventKeys    = []string{"type", "response", "item", "item_id", "output_index", "delta", "arguments", "code", "message", "error", "sequence_number"}
	scanResponseKeys = []string{"id", "object", "model", "status", "output", "usage", "error", "incomplete_details"}
	scanItemKeys     = []string{"type", "id", "role", "content", "call_id", "name", "arguments", "output", "summary", "encrypted_content", "status"}
	scanUsageKeys    = []string{"input_tokens", "output_tokens"}
	scanSummaryKeys  = []string{"type", "text"}
	scanReasonKeys   = []string{"reason"}
)

// envelope is the storage scan decodes into, kept in the stream so that an
// event costs no allocation: the streamEvent's pointers point here. handle
// copies what it keeps out of it before the next event.
type envelope struct {
	ev         streamEvent
	response   wireResponse
	item       wireItem
	usage      wireUsage
	encrypted  string
	index      int
	incomplete struct {
		Reason string `json:"reason"`
	}
}

// scan decodes event data into s.env.ev exactly as json.Unmarshal decodes
// it into a zero streamEvent, except that what the stream never reads (a
// response's output; an item's content, output and summary) is checked
// but not kept, and the raw values (delta, arguments) are views of data. It
// reports false for anything it is not sure of, as the fast path does
// (see fast), and for an error object or code, which the general path
// decodes.
func (s *stream) scan(data []byte) bool {
	e := &s.env
	e.ev = streamEvent{}
	se := &e.ev
	p := jsonscan.New(data)
	ok := p.Object(scanEventKeys, eventNames, func(k int) bool {
		switch k {
		case 0: // type
			return s.scanString(&p, &se.Type)
		case 1: // response
			if p.Null() {
				return true
			}
			se.Response = &e.response
			return s.scanResponse(&p, &e.response)
		case 2: // item
			if p.Null() {
				return true
			}
			se.Item = &e.item
			return s.scanItem(&p, &e.item)
		case 3: // item_id
			return s.scanString(&p, &se.ItemID)
		case 4: // output_index
			if p.Null() {
				return true
			}
			n, ok := p.Small()
			e.index, se.OutputIndex = n, &e.index
			return ok
		case 5: // delta
			v, ok := p.Value()
			se.Delta = v
			return ok
		case 6: // arguments
			v, ok := p.Value()
			se.Arguments = v
			return ok
		case 7, 9: // code, error
			return p.Null()
		case 8: // message
			return s.scanString(&p, &se.Message)
		default: // sequence_number, which streamEvent does not have
			return p.Skip()
		}
	})
	return ok && p.End()
}

// scanString reads a string or null into *v as encoding/json would,
// refusing what jsonscan.Strings.Text refuses.
func (s *stream) scanString(p *jsonscan.Scanner, v *string) bool {
	if p.Null() {
		return true
	}
	raw, esc, ok := p.Str()
	if !ok {
		return false
	}
	*v, ok = s.strs.Text(raw, esc)
	return ok
}

// checkString reports whether the next value is a string or null, which
// encoding/json decodes into a string field without error whatever it
// holds.
func checkString(p *jsonscan.Scanner) bool {
	if p.Null() {
		return true
	}
	_, _, ok := p.Str()
	return ok
}

// scanResponse reads a response object into r, zeroed first; its output is
// checked item by item and not kept.
func (s *stream) scanResponse(p *jsonscan.Scanner, r *wireResponse) bool {
	*r = wireResponse{}
	e := &s.env
	return p.Object(scanResponseKeys, scanResponseKeys, func(k int) bool {
		switch k {
		case 0:
			return s.scanString(p, &r.ID)
		case 1:
			return checkString(p)
		case 2:
			return s.scanString(p, &r.Model)
		case 3:
			return s.scanString(p, &r.Status)
		case 4: // output
			if p.Null() {
				return true
			}
			return p.Array(func() bool { return checkItem(p) })
		case 5: // usage
			if p.Null() {
				return true
			}
			e.usage, r.Usage = wireUsage{}, &e.usage
			return p.Object(scanUsageKeys, scanUsageKeys, func(k int) bool {
				if p.Null() {
					return true
				}
				n, ok := p.Small()
				if k == 0 {
					e.usage.InputTokens = n
				} else {
					e.usage.OutputTokens = n
				}
				return ok
			})
		case 6: // error
			return p.Null()
		default: // incomplete_details
			if p.Null() {
				return true
			}
			e.incomplete.Reason, r.IncompleteDetails = "", &e.incomplete
			return p.Object(scanReasonKeys, scanReasonKeys, func(int) bool { return s.scanString(p, &e.incomplete.Reason) })
		}
	})
}

// scanItem reads an item object into it, zeroed first. Its content,
// output and summary, which the stream never reads, are checked but not
// kept.
func (s *stream) scanItem(p *jsonscan.Scanner, it *wireItem) bool {
	*it = wireItem{}
	return p.Object(scanItemKeys, scanItemKeys, func(k int) bool {
		switch k {
		case 0:
			return s.scanString(p, &it.Type)
		case 1:
			return s.scanString(p, &it.ID)
		case 2:
			return s.scanString(p, &it.Role)
		case 3, 7: // content, output
			return p.Skip()
		case 4:
			return s.scanString(p, &it.CallID)
		case 5:
			return s.scanString(p, &it.Name)
		case 6:
			v, ok := p.Value()
			it.Arguments = v
			return ok
		case 8:
			return checkSummary(p)
		case 9: // encrypted_content
			if p.Null() {
				return true
			}
			it.EncryptedContent = &s.env.encrypted
			return s.scanString(p, &s.env.encrypted)
		default:
			return s.scanString(p, &it.Status)
		}
	})
}

// checkItem reports whether the next value decodes as a wireItem.
func checkItem(p *jsonscan.Scanner) bool {
	return p.Object(scanItemKeys, scanItemKeys, func(k int) bool {
		switch k {
		case 3, 6, 7: // content, arguments, output
			return p.Skip()
		case 8:
			return checkSummary(p)
		}
		return checkString(p)
	})
}

// checkSummary reports whether the next value decodes as []wireSummary.
func checkSummary(p *jsonscan.Scanner) bool {
	if p.Null() {
		return true
	}
	return p.Array(func() bool {
		if p.Null() {
			return true
		}
		return p.Object(scanSummaryKeys, scanSummaryKeys, func(int) bool { return checkString(p) })
	})
}
