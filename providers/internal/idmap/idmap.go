// Package idmap translates tool-call ids between a canonical conversation
// and a wire protocol that accepts only some ids: Mistral's exactly nine
// alphanumerics (D05), OpenAI Chat Completions' 40 characters, the 64 of
// the Responses API and Bedrock Converse (D04).
package idmap

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/toolconform/conform/core"
)

// DefaultMax is the number of id pairs a Map keeps unless told otherwise.
const DefaultMax = 1 << 16

// ErrTooMany reports a Map that reached its size limit; it is a kind of
// core.ErrTooLarge.
var ErrTooMany = fmt.Errorf("mapped id count %w", core.ErrTooLarge)

// Map translates call ids between a canonical conversation and a protocol
// that accepts only some ids.
//
// ToWire leaves a valid id alone and replaces any other by a valid id
// derived from it deterministically (a hash, so the same foreign id always
// gets the same replacement), remembering the pair; FromWire gives back the
// original of a replacement and leaves every other id alone. The map is safe
// for concurrent use and holds at most its limit of pairs (ErrTooMany).
//
// A provider-made id that happens to equal a replacement would be mapped
// back to the foreign id; with 62^9 possible Mistral ids this is left as a
// known, negligible risk.
type Map struct {
	mu    sync.Mutex
	valid func(string) bool
	mint  func(id string, attempt int) string
	max   int
	wire  map[string]string // original -> replacement
	orig  map[string]string // replacement -> original
}

// New returns a Map for the protocol whose ids satisfy valid, minting
// replacements with mint (attempt counts up on a collision) and holding at
// most max pairs (max <= 0 means DefaultMax).
func New(valid func(string) bool, mint func(id string, attempt int) string, max int) *Map {
	if max <= 0 {
		max = DefaultMax
	}
	return &Map{valid: valid, mint: mint, max: max, wire: map[string]string{}, orig: map[string]string{}}
}

// ToWire returns the id to send for id. The empty id stays empty.
func (m *Map) ToWire(id string) (string, error) {
	if id == "" || m.valid(id) {
		return id, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if w, ok := m.wire[id]; ok {
		return w, nil
	}
	if len(m.wire) >= m.max {
		return "", fmt.Errorf("map id %q: %w (limit %d)", id, ErrTooMany, m.max)
	}
	for attempt := 0; ; attempt++ {
		w := m.mint(id, attempt)
		if _, taken := m.orig[w]; !taken {
			m.wire[id] = w
			m.orig[w] = id
			return w, nil
		}
	}
}

// FromWire returns the original id of a replacement, or id itself.
func (m *Map) FromWire(id string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if o, ok := m.orig[id]; ok {
		return o
	}
	return id
}

// Len returns the number of pairs held.
func (m *Map) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.wire)
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Hash returns n base-62 characters derived from id and attempt by
// SHA-256, for minting replacement ids.
func Hash(id string, attempt, n int) string {
	out := make([]byte, 0, n)
	for block := 0; len(out) < n; block++ {
		var salt [16]byte
		binary.BigEndian.PutUint64(salt[:8], uint64(attempt))
		binary.BigEndian.PutUint64(salt[8:], uint64(block))
		h := sha256.New()
		h.Write(salt[:])
		h.Write([]byte(id))
		sum := h.Sum(nil)
		for _, c := range sum {
			if len(out) == n {
				break
			}
			if c >= 248 { // 248 = 4*62: drop values that would bias the digits
				continue
			}
			out = append(out, base62[int(c)%62])
		}
	}
	return string(out)
}

// ToWireMessages returns msgs with every call's id and every result's call
// id replaced by ToWire, so that a call and its result keep one id. A
// message that needs no change is shared with msgs, not copied; msgs itself
// is never modified. An error names the message.
func (m *Map) ToWireMessages(msgs []core.Message) ([]core.Message, error) {
	var out []core.Message
	for i, msg := range msgs {
		var err error
		mapped := mapIDs(msg, func(id string) string {
			w, e := m.ToWire(id)
			if e != nil && err == nil {
				err = e
			}
			return w
		})
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		out = append(out, mapped)
	}
	return out, nil
}

// FromWireMessage returns msg with every id minted by this Map replaced by
// its original, sharing msg when nothing changes.
func (m *Map) FromWireMessage(msg core.Message) core.Message {
	return mapIDs(msg, m.FromWire)
}

// mapIDs returns msg with the ids of its calls and results passed through
// f; the parts are copied only when an id changes.
func mapIDs(msg core.Message, f func(string) string) core.Message {
	var parts []core.Part
	for j, p := range msg.Parts {
		switch {
		case p.Call != nil:
			if id := f(p.Call.ID); id != p.Call.ID {
				c := *p.Call
				c.ID = id
				p.Call = &c
			}
		case p.Result != nil:
			if id := f(p.Result.CallID); id != p.Result.CallID {
				r := *p.Result
				r.CallID = id
				p.Result = &r
			}
		}
		if parts == nil && (p.Call != msg.Parts[j].Call || p.Result != msg.Parts[j].Result) {
			parts = append(make([]core.Part, 0, len(msg.Parts)), msg.Parts[:j]...)
		}
		if parts != nil {
			parts = append(parts, p)
		}
	}
	if parts != nil {
		msg.Parts = parts
	}
	return msg
}
