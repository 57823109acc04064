package sse_test

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/toolconform/conform/sse"
)

// A provider's stream, read one event at a time; the last event has no
// closing blank line, which FlushAtEOF accepts.
func ExampleDecoder() {
	stream := "event: delta\ndata: {\"text\":\"Hel\"}\n\n" +
		": keep-alive\n\n" +
		"event: delta\ndata: {\"text\":\"lo\"}\r\n\r\n" +
		"data: [DONE]"
	dec := sse.NewDecoder(strings.NewReader(stream), sse.FlushAtEOF())
	for {
		ev, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%q %s\n", ev.Type, ev.Data)
	}
	// Output:
	// "delta" {"text":"Hel"}
	// "delta" {"text":"lo"}
	// "" [DONE]
}

// Events written by an Encoder decode to the same events.
func ExampleEncoder() {
	var b strings.Builder
	enc := sse.NewEncoder(&b)
	_ = enc.Encode(sse.Event{Type: "message_start", Data: "{}"})
	_ = enc.Encode(sse.Event{Data: "two\nlines", ID: "7"})
	fmt.Print(b.String())
	// Output:
	// event: message_start
	// data: {}
	//
	// id: 7
	// data: two
	// data: lines
	//
}
