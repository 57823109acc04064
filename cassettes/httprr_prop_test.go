package cassettes

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestHTTPRRRoundTrip writes random exchanges as an httprr trace, with
// response bodies either sized by Content-Length or cut into random
// chunks, and checks Import gives back every request and response body,
// method and path.
func TestHTTPRRRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		type exchange struct {
			Method, Path, ReqBody, RespBody string
			Code                            int
		}
		var want []exchange
		var wire []string
		for range rapid.IntRange(1, 4).Draw(t, "exchanges") {
			ex := exchange{
				Method:   rapid.SampledFrom([]string{"GET", "POST"}).Draw(t, "method"),
				Path:     "/v1/" + rapid.StringMatching(`[a-z]{1,8}`).Draw(t, "path"),
				ReqBody:  rapid.StringMatching(`[ -~\n]{0,40}`).Draw(t, "request body"),
				RespBody: rapid.StringMatching(`[ -~\n\r]{0,80}`).Draw(t, "response body"),
				Code:     rapid.SampledFrom([]int{200, 400, 429, 500}).Draw(t, "code"),
			}
			req := fmt.Sprintf("%s https://api.openai.com%s HTTP/1.1\r\nHost: api.openai.com\r\nContent-Length: %d\r\n\r\n%s", ex.Method, ex.Path, len(ex.ReqBody), ex.ReqBody)
			var resp strings.Builder
			fmt.Fprintf(&resp, "HTTP/1.1 %d X\r\nContent-Type: text/plain\r\n", ex.Code)
			if rapid.Bool().Draw(t, "chunked") {
				resp.WriteString("Transfer-Encoding: chunked\r\n\r\n")
				rest := ex.RespBody
				for len(rest) > 0 {
					k := rapid.IntRange(1, len(rest)).Draw(t, "chunk")
					fmt.Fprintf(&resp, "%x\r\n%s\r\n", k, rest[:k])
					rest = rest[k:]
				}
				resp.WriteString("0\r\n\r\n")
			} else {
				fmt.Fprintf(&resp, "Content-Length: %d\r\n\r\n%s", len(ex.RespBody), ex.RespBody)
			}
			wire = append(wire, req, resp.String())
			want = append(want, ex)
		}
		res, err := Import("t.httprr", []byte(httprrTrace(wire...)))
		if err != nil {
			t.Fatal(err)
		}
		var got []exchange
		for _, i := range res.Cassette.Interactions {
			got = append(got, exchange{
				Method: i.Request.Method, Path: strings.TrimPrefix(i.Request.URL, "https://api.openai.com"),
				ReqBody: i.Request.Body, RespBody: i.Response.Body, Code: i.Response.Code,
			})
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("exchanges (-want +got):\n%s", diff)
		}
	})
}
