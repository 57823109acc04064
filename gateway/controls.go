package gateway

import "fmt"

// ApplyControls decides every pass by failing in results (Result.ByFailing)
// against a control in the same results: a case of the same front,
// upstream and request form (whole or streamed) that the gateway passed
// on a good answer. A gateway that cannot carry a stream at all says
// "error" to every broken one; without such a control its pass shows
// nothing and becomes StatusNotCounted, with the reason. It returns the
// number of passes discounted.
func ApplyControls(results []Result) int {
	type key struct {
		front, upstream string
		stream          bool
	}
	control := map[key]string{}
	for _, r := range results {
		k := key{r.Front, r.Upstream, r.Stream}
		if _, ok := control[k]; !ok && r.Status == StatusPass && !r.ByFailing {
			control[k] = r.Name
		}
	}
	n := 0
	for i := range results {
		r := &results[i]
		if r.Status != StatusPass || !r.ByFailing {
			continue
		}
		if c, ok := control[key{r.Front, r.Upstream, r.Stream}]; ok {
			r.Control = c
			continue
		}
		form := "whole"
		if r.Stream {
			form = "streamed"
		}
		r.Status, r.Held = StatusNotCounted, nil
		r.Reason = fmt.Sprintf("not counted: the gateway fails the control: no %s>%s case asked for %s passed on a good answer in this run, so an error to a broken one shows nothing (under --chaos disconnect or error no answer is unbroken: the run without chaos is the control)", r.Front, r.Upstream, form)
		n++
	}
	return n
}
