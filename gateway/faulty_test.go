package gateway_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/gateway"
	"github.com/toolconform/conform/serve"
)

// TestFaultyGateway starts a deliberately faulty gateway (testdata/faultygw,
// a real subprocess described by a spec file) in front of serve and checks
// that each fault fails with the failure modes that name it, and only
// the streamed cases where the fault can show.
func TestFaultyGateway(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "faultygw")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/faultygw").CombinedOutput(); err != nil {
		t.Fatalf("build faultygw: %v\n%s", err, out)
	}
	up, err := gateway.NewUpstream(builtin(t), serve.Chaos{})
	if err != nil {
		t.Fatal(err)
	}
	upURL := listen(t, up)
	// B12 streams each call's arguments one byte per delta; D07 has two
	// calls after text.
	names := []string{"anthropic/streaming/B12-one-byte-fragments", "anthropic/response/D07-text-and-two-calls"}
	// The Anthropic adapter writes D07's calls each in one delta, so
	// dropping a second fragment leaves it whole.
	tests := []struct {
		spec string
		// want maps each case to the failure modes its problems name.
		want map[string][]string
	}{
		{"testdata/faulty-drop-second-fragment.json", map[string][]string{
			"anthropic>anthropic/streaming/B12-one-byte-fragments stream": {"C03", "I04"},
		}},
		{"testdata/faulty-early-stop.json", map[string][]string{
			"anthropic>anthropic/streaming/B12-one-byte-fragments stream": {"A19", "C03", "F04", "I01", "I04"},
			"anthropic>anthropic/response/D07-text-and-two-calls stream":  {"A19", "C03", "F04", "I01", "I04"},
		}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.spec), func(t *testing.T) {
			spec, err := gateway.LoadSpec(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			spec.Command[0] = bin
			p, err := spec.Start(context.Background(), "anthropic", upURL)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Stop()
			got := map[string][]string{}
			for _, r := range gateway.Run(context.Background(), up, p.Target, names) {
				if r.Status == gateway.StatusNotApplicable {
					t.Errorf("%s: not applicable: %s", r.Name, r.Reason)
					continue
				}
				if r.Status == gateway.StatusPass {
					continue
				}
				var rules []string
				for _, pr := range r.Problems {
					t.Logf("%s: %s", r.Name, pr)
					if !slices.Contains(rules, pr.Rule) {
						rules = append(rules, pr.Rule)
					}
				}
				if len(r.Evidence) == 0 {
					t.Errorf("%s failed without quoting the bytes", r.Name)
				}
				got[r.Name] = rules
			}
			for name, rules := range got {
				slices.Sort(rules)
				got[name] = slices.Compact(rules)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("failure modes per case (-want +got):\n%s", d)
			}
		})
	}
}
