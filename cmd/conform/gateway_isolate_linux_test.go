package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolconform/conform/gateway"
	"github.com/toolconform/conform/tools/sandbox"
)

// TestGatewayIsolated runs conform gateway --spec with its default
// --isolate: conform runs itself in a network namespace with only loopback,
// with serve and the faulty gateway beside it. The gateway's connection
// attempt to a public address fails there, and the failure is reported as
// a finding quoting the gateway's log; the gateway's own fault is graded
// as on the host.
func TestGatewayIsolated(t *testing.T) {
	fac := sandbox.Probe()
	for _, err := range []error{fac.UserNS, fac.NetNS, fac.Loopback, fac.MountNS, fac.PIDNS} {
		if err != nil {
			t.Skipf("no sandbox on this machine: %v", err)
		}
	}
	// The sandbox user must read and run what the namespace runs.
	dir, err := os.MkdirTemp("", "conform-gateway-isolated-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gw := filepath.Join(dir, "faultygw")
	if out, err := exec.Command("go", "build", "-o", gw, "../../gateway/testdata/faultygw").CombinedOutput(); err != nil {
		t.Fatalf("build faultygw: %v\n%s", err, out)
	}
	// conform is this test binary under the name TestMain dispatches on.
	bin := filepath.Join(dir, "bin")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(bin, "conform")); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "spec.json")
	body := fmt.Sprintf(`{
  "name": "faultygw phoning home",
  "command": [%q, "--addr", "127.0.0.1:{{port}}", "--upstream-url", "{{upstream_url}}", "--fault", "early-stop", "--dial", "192.0.2.1:443"],
  "front": "anthropic",
  "base_url": "http://127.0.0.1:{{port}}",
  "upstreams": {"anthropic": {}},
  "ready": "http://127.0.0.1:{{port}}/health"
}`, gw)
	if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("conform", "gateway", "--spec", spec, "--run", "anthropic/response/D07", "--format", "json")
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Path = filepath.Join(bin, "conform")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if code := cmd.ProcessState.ExitCode(); code != exitFail {
		t.Fatalf("exit %d (%v), want %d\nstderr:\n%s", code, err, exitFail, stderr.String())
	}
	file, err := gateway.ParseFile(out)
	if err != nil {
		t.Fatalf("results: %v\n%s", err, out)
	}
	results := file.Results
	if file.Provenance.Command != "gateway" || file.Provenance.Scenarios == "" {
		t.Errorf("the isolated run's results lack their provenance: %+v", file.Provenance)
	}
	status := map[string]string{}
	var outbound *gateway.Result
	for i, r := range results {
		status[r.Name] = r.Status
		if r.Name == "anthropic>anthropic/isolation/outbound" {
			outbound = &results[i]
		}
	}
	if outbound == nil || len(outbound.Evidence) == 0 || !strings.Contains(outbound.Evidence[0].Bytes, "network is unreachable") {
		t.Errorf("no outbound finding quoting the failed connection; results: %+v", results)
	}
	if got := status["anthropic>anthropic/response/D07-text-and-two-calls stream"]; got != gateway.StatusFail {
		t.Errorf("the early-stop fault streamed: %q, want fail", got)
	}
	if got := status["anthropic>anthropic/response/D07-text-and-two-calls"]; got != gateway.StatusPass {
		t.Errorf("the whole response, which the fault leaves alone: %q, want pass", got)
	}
}
