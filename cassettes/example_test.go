package cassettes_test

import (
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/toolconform/conform/cassettes"
)

// A response-only fixture gets a made-up request for its protocol, which
// is guessed from the payload.
func ExampleImport() {
	chunks := `{"object":"chat.completion.chunk","model":"gpt-4o","choices":[]}` + "\n"
	res, err := cassettes.Import("tool.chunks.txt", []byte(chunks))
	if err != nil {
		log.Fatal(err)
	}
	i := res.Cassette.Interactions[0]
	fmt.Println(res.Format, res.Protocol, res.ResponseOnly)
	fmt.Println(i.Request.Method, i.Request.URL)
	fmt.Printf("%q\n", i.Response.Body)
	// Output:
	// chunks openai-chat true
	// POST https://api.openai.com/v1/chat/completions
	// "data: {\"object\":\"chat.completion.chunk\",\"model\":\"gpt-4o\",\"choices\":[]}\n\n"
}

// Errors name the file and the place of the fault.
func ExampleImport_error() {
	_, err := cassettes.Import("trace.httprr", []byte("httprr trace v1\n100 100\nGET"))
	fmt.Println(err)
	// Output:
	// import trace.httprr: offset 24: exchange 0: want 100 request and 100 response bytes, have 3: truncated
}

// The imported corpus replays to any client, whatever its headers.
func ExampleNewReplayer() {
	names, err := cassettes.Glob("anthropic")
	if err != nil {
		log.Fatal(err)
	}
	c, err := cassettes.Load(names[0])
	if err != nil {
		log.Fatal(err)
	}
	rec, err := cassettes.NewReplayer(names[0])
	if err != nil {
		log.Fatal(err)
	}
	defer rec.Stop()
	resp, err := rec.GetDefaultClient().Post("http://localhost/v1/messages", "application/json", strings.NewReader(c.Interactions[0].Request.Body))
	if err != nil {
		log.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(len(names), resp.StatusCode, string(body) == c.Interactions[0].Response.Body)
	// Output:
	// 28 200 true
}
