package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolconform/conform/internal/jsonvalue"
	"github.com/toolconform/conform/internal/process"
	"github.com/toolconform/conform/providers"
)

// Spec describes a gateway to grade: how to start it, where it listens,
// which protocols it speaks and how to stop it. It is read from a JSON
// file (LoadSpec); docs/gateway.md documents every field.
//
// Strings in Command, Env, Config, BaseURL, Ready and Upstreams' headers
// may hold placeholders, replaced before use: {{port}} (a free loopback
// port conform chose), {{upstream_url}} (conform serve's base URL),
// {{upstream}} (the upstream protocol), {{home}} (the gateway's private
// HOME, a fresh temporary directory) and {{dir}} (the spec file's
// directory).
type Spec struct {
	Name string `json:"name"`
	// Command is the program and its arguments, run in Dir ({{dir}} when
	// empty) with Env added to a minimal environment (PATH and HOME).
	Command []string          `json:"command"`
	Dir     string            `json:"dir,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// Config files are written under {{home}} before the start.
	Config []ConfigFile `json:"config,omitempty"`
	// Front is the protocol the gateway takes.
	Front string `json:"front"`
	// BaseURL is the gateway's base URL for clients.
	BaseURL string `json:"base_url"`
	// Upstreams are the upstream protocols it can use, each with what
	// picks it.
	Upstreams map[string]UpstreamSpec `json:"upstreams"`
	// Ready is a URL polled until it answers (any status below 500).
	Ready string `json:"ready"`
	// ReadyTimeout bounds the wait; "" means 60s.
	ReadyTimeout string `json:"ready_timeout,omitempty"`
	// StopGrace is how long the gateway has to exit after SIGTERM before
	// SIGKILL; "" means 5s.
	StopGrace string `json:"stop_grace,omitempty"`
}

// ConfigFile is a file written before the gateway starts.
type ConfigFile struct {
	// Path is relative to {{home}}.
	Path string `json:"path"`
	// Template is the file's text, placeholders replaced.
	Template string `json:"template"`
}

// UpstreamSpec says how the gateway is pointed at an upstream protocol.
type UpstreamSpec struct {
	// Header is added to every request (a per-request choice).
	Header map[string]string `json:"header,omitempty"`
	// Env and Config are added to the spec's for this upstream (a choice
	// made at start).
	Env    map[string]string `json:"env,omitempty"`
	Config []ConfigFile      `json:"config,omitempty"`
	// Model is the model name the front request carries ("" for the front
	// protocol's default), for gateways that route by model name.
	Model string `json:"model,omitempty"`
}

// LoadSpec reads a spec file; every fault names the file and the field.
func LoadSpec(path string) (*Spec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var s Spec
	if err := dec.Decode(&s); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("%s: byte %d: %w", path, se.Offset, err)
		case errors.As(err, &te):
			return nil, fmt.Errorf("%s: byte %d: field %s: want %s, not %s", path, te.Offset, te.Field, jsonvalue.KindOf(te.Type), te.Value)
		case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
			return nil, fmt.Errorf("%s: byte %d: the JSON ends early", path, len(b))
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	abs, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	s.Dir = strings.ReplaceAll(s.Dir, "{{dir}}", abs)
	if s.Dir == "" {
		s.Dir = abs
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}

func (s *Spec) check() error {
	switch {
	case len(s.Command) == 0:
		return errors.New("command: empty")
	case s.BaseURL == "":
		return errors.New("base_url: empty")
	case s.Ready == "":
		return errors.New("ready: empty")
	case len(s.Upstreams) == 0:
		return errors.New("upstreams: empty")
	}
	if _, err := providers.Lookup(s.Front); err != nil {
		return fmt.Errorf("front: %w", err)
	}
	for q := range s.Upstreams {
		if _, err := providers.Lookup(q); err != nil {
			return fmt.Errorf("upstreams: %w", err)
		}
	}
	for _, d := range []struct{ field, v string }{{"ready_timeout", s.ReadyTimeout}, {"stop_grace", s.StopGrace}} {
		if d.v == "" {
			continue
		}
		if _, err := time.ParseDuration(d.v); err != nil {
			return fmt.Errorf("%s: %w", d.field, err)
		}
	}
	for i, c := range s.Config {
		if c.Path == "" || filepath.IsAbs(c.Path) || strings.HasPrefix(filepath.Clean(c.Path), "..") {
			return fmt.Errorf("config[%d].path %q: want a path inside {{home}}", i, c.Path)
		}
	}
	return nil
}

// UpstreamNames returns the spec's upstream protocols, sorted.
func (s *Spec) UpstreamNames() []string {
	var out []string
	for q := range s.Upstreams {
		out = append(out, q)
	}
	slices.Sort(out)
	return out
}

// Process is a started gateway.
type Process struct {
	// Target is where to send requests.
	Target Target
	// Home is the gateway's private HOME.
	Home string
	cmd  *exec.Cmd
	out  *limitWriter
	done chan error
	// grace before SIGKILL
	grace time.Duration
}

// Start starts the gateway for upstream protocol q with its upstream at
// upstreamURL, and waits until Ready answers. The caller must Stop it.
func (s *Spec) Start(ctx context.Context, q, upstreamURL string) (*Process, error) {
	up, ok := s.Upstreams[q]
	if !ok {
		return nil, fmt.Errorf("gateway %s: upstream %q not in the spec; it has %s", s.Name, q, strings.Join(s.UpstreamNames(), ", "))
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	home, err := os.MkdirTemp("", "conform-gateway-home-")
	if err != nil {
		return nil, err
	}
	r := strings.NewReplacer("{{port}}", strconv.Itoa(port), "{{upstream_url}}", upstreamURL, "{{upstream}}", q, "{{home}}", home, "{{dir}}", s.Dir)
	for _, c := range slices.Concat(s.Config, up.Config) {
		p := filepath.Join(home, c.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(r.Replace(c.Template)), 0o600); err != nil {
			return nil, err
		}
	}
	argv := make([]string, len(s.Command))
	for i, a := range s.Command {
		argv[i] = r.Replace(a)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.Dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + home}
	for _, env := range []map[string]string{s.Env, up.Env} {
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+r.Replace(v))
		}
	}
	out := &limitWriter{n: 2 << 20}
	cmd.Stdout, cmd.Stderr = out, out
	process.SetGroup(cmd)
	if err := cmd.Start(); err != nil {
		os.RemoveAll(home)
		return nil, fmt.Errorf("gateway %s: start %q: %w", s.Name, argv[0], err)
	}
	p := &Process{cmd: cmd, out: out, done: make(chan error, 1), Home: home, grace: 5 * time.Second}
	if s.StopGrace != "" {
		p.grace, _ = time.ParseDuration(s.StopGrace)
	}
	go func() { p.done <- cmd.Wait() }()
	header := http.Header{}
	for k, v := range up.Header {
		header.Set(k, r.Replace(v))
	}
	p.Target = Target{Front: s.Front, Upstream: q, URL: r.Replace(s.BaseURL), Header: header, Model: up.Model}
	timeout := 60 * time.Second
	if s.ReadyTimeout != "" {
		timeout, _ = time.ParseDuration(s.ReadyTimeout)
	}
	if err := p.waitReady(ctx, r.Replace(s.Ready), timeout); err != nil {
		p.Stop()
		if out := strings.TrimSpace(p.Output()); out != "" {
			return nil, fmt.Errorf("gateway %s: %w; its output:\n%s", s.Name, err, out)
		}
		return nil, fmt.Errorf("gateway %s: %w; it printed nothing", s.Name, err)
	}
	return p, nil
}

// waitReady polls url until it answers below 500, the process exits or
// the timeout passes.
func (p *Process) waitReady(ctx context.Context, url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	wait := 20 * time.Millisecond
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return fmt.Errorf("ready %q: %w", url, err)
		}
		if resp, err := client.Do(req); err == nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			resp.Body.Close()
			if resp.StatusCode < 500 {
				return nil
			}
		}
		select {
		case err := <-p.done:
			p.done <- err
			return fmt.Errorf("exited before it was ready (%v)", err)
		case <-ctx.Done():
			return fmt.Errorf("not ready at %s after %v", url, timeout)
		case <-time.After(wait):
			wait = min(2*wait, 500*time.Millisecond)
		}
	}
}

// Stop sends SIGTERM to the gateway's process group, SIGKILL after the
// grace period, waits for it and removes its HOME.
func (p *Process) Stop() error {
	defer os.RemoveAll(p.Home)
	pgid := p.cmd.Process.Pid
	process.TermGroup(pgid)
	select {
	case err := <-p.done:
		process.KillGroup(pgid) // children that stayed
		p.done <- err
		return nil
	case <-time.After(p.grace):
		process.KillGroup(pgid)
		err := <-p.done
		p.done <- err
		return nil
	}
}

// Exited reports whether the gateway's process has exited, and how: its
// exit status (or the signal that ended it) and the last lines it wrote.
func (p *Process) Exited() (string, bool) {
	select {
	case err := <-p.done:
		p.done <- err
		how := "exit status 0"
		if err != nil {
			how = err.Error()
		}
		p.out.mu.Lock()
		tail := lastOutput(string(p.out.tail), 20, 2<<10)
		p.out.mu.Unlock()
		if tail != "" {
			how += "; its last output:\n" + tail
		}
		return how, true
	default:
		return "", false
	}
}

// lastOutput returns the last lines of out, at most lines of them and
// at most max bytes, cut at a line start.
func lastOutput(out string, lines, max int) string {
	out = strings.TrimRight(out, "\n")
	if len(out) > max {
		out = out[len(out)-max:]
		if i := strings.IndexByte(out, '\n'); i >= 0 {
			out = out[i+1:]
		}
	}
	parts := strings.Split(out, "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
}

// Output returns what the gateway wrote to stdout and stderr, the first
// 2 MiB.
func (p *Process) Output() string {
	p.out.mu.Lock()
	defer p.out.mu.Unlock()
	return p.out.buf.String()
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// limitWriter keeps the first n bytes written to it, and the last
// tailSize, from any goroutine.
type limitWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	n    int
	tail []byte
}

// tailSize is how many of the last bytes written a limitWriter keeps.
const tailSize = 4 << 10

func (l *limitWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.n - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(len(p), room)])
	}
	l.tail = append(l.tail, p[max(0, len(p)-tailSize):]...)
	if len(l.tail) > tailSize {
		l.tail = append(l.tail[:0], l.tail[len(l.tail)-tailSize:]...)
	}
	return len(p), nil
}
