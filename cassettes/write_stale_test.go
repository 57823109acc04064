package cassettes

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// writeHelperEnv makes the test binary a helper process of the temporary
// file tests: "block" writes WRITE_HELPER_SIZE bytes to WRITE_HELPER_PATH,
// says which temporary file holds them and waits on stdin before putting
// it in place; "write" writes them with force and says "ok".
const writeHelperEnv = "CONFORM_WRITE_HELPER"

// TestWriteHelperProcess is the helper process itself; in an ordinary test
// run the variable is unset and it returns at once.
func TestWriteHelperProcess(t *testing.T) {
	mode := os.Getenv(writeHelperEnv)
	if mode == "" {
		return
	}
	path := os.Getenv("WRITE_HELPER_PATH")
	size, _ := strconv.Atoi(os.Getenv("WRITE_HELPER_SIZE"))
	data := bytes.Repeat([]byte{'x'}, size)
	if mode == "block" {
		testHookTempWritten = func(tmp string) {
			fmt.Printf("written %s\n", tmp)
			os.Stdout.Sync()
			_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // never answered: the parent kills us
		}
	}
	if err := WriteFile(path, data, true); err != nil {
		fmt.Printf("error %v\n", err)
		os.Exit(1)
	}
	fmt.Println("ok")
	os.Exit(0)
}

// helper returns the command of a helper process.
func helper(mode, path string, size int) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), writeHelperEnv+"="+mode, "WRITE_HELPER_PATH="+path, "WRITE_HELPER_SIZE="+strconv.Itoa(size))
	return cmd
}

// runHelper runs a "write" helper process to its end: a new run of
// conform saving the same cassette.
func runHelper(t *testing.T, path string, size int) {
	t.Helper()
	out, err := helper("write", path, size).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("ok\n")) {
		t.Fatalf("helper write: %v: %s", err, out)
	}
}

// dirNames lists a directory's names, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// TestKilledSaveLeavesNoTemp kills a real process in the middle of a save,
// after its 4 MB temporary file is written and before it is put in place:
// while that process lives, another run's save leaves its file alone (it
// is locked); once it is killed, the next run's save removes it. Files
// that only look alike are never touched.
func TestKilledSaveLeavesNoTemp(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no SIGKILL and flock here")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	const size = 4 << 20
	// Look-alikes of other targets or other shapes: never removed.
	lookalikes := []string{".c.yaml.tmp", ".c.yaml.12ab.tmp", "c.yaml.123.tmp", ".d.yaml.123.tmp", ".c.yaml.123.tmp.bak"}
	old := time.Now().Add(-time.Hour)
	for _, n := range lookalikes {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte("keep"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}

	blocked := helper("block", path, size)
	stdin, err := blocked.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := blocked.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := blocked.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			blocked.Process.Kill()
			blocked.Wait()
		}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("helper said nothing: %v", err)
	}
	tmp, ok := strings.CutPrefix(strings.TrimSpace(line), "written ")
	if !ok {
		t.Fatalf("helper said %q", line)
	}
	if fi, err := os.Stat(tmp); err != nil || fi.Size() != size {
		t.Fatalf("temporary file of the blocked save: %v, %v", fi, err)
	}

	// A live writer's file survives another run's save.
	runHelper(t, path, 10)
	if _, err := os.Stat(tmp); err != nil {
		t.Fatalf("a save by another run removed the temporary file of a live one: %v", err)
	}

	if err := blocked.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	werr := blocked.Wait()
	killed = true
	var ee *exec.ExitError
	if !errors.As(werr, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("helper ended with %v, want killed", werr)
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Fatalf("the killed save left no temporary file to clean (%v): the test reproduces nothing", err)
	}

	// The next run's save cleans it.
	runHelper(t, path, 20)
	want := append([]string{"c.yaml"}, lookalikes...)
	sort.Strings(want)
	if diff := cmp.Diff(want, dirNames(t, dir)); diff != "" {
		t.Errorf("directory after the next save (-want +got):\n%s", diff)
	}
	if got := len(mustRead(t, path)); got != 20 {
		t.Errorf("cassette of %d bytes, want the next save's 20", got)
	}
}

// TestStaleTempRules plants temporary files in this process: one older
// than the run is removed by the next save, one written during this run
// (a concurrent save's, as far as the age tells) is kept.
func TestStaleTempRules(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	stale, fresh := filepath.Join(dir, ".c.yaml.111.tmp"), filepath.Join(dir, ".c.yaml.222.tmp")
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, bytes.Repeat([]byte("x"), 1<<20), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := runStart.Add(-time.Minute)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute) // after runStart whatever the clock's grain
	if err := os.Chtimes(fresh, later, later); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("one"), false); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{".c.yaml.222.tmp", "c.yaml"}, dirNames(t, dir)); diff != "" {
		t.Errorf("directory (-want +got):\n%s", diff)
	}
}

// TestSaveErrorsLeaveNoTemp fails a save at each step it can fail at after
// the temporary file exists, and checks no temporary file is left.
func TestSaveErrorsLeaveNoTemp(t *testing.T) {
	refuse := errors.New("refused by verify")
	tests := []struct {
		name    string
		prepare func(t *testing.T, path string)
		verify  func([]byte) error
		want    error
	}{
		{"verify refuses", nil, func([]byte) error { return refuse }, refuse},
		{"appears meanwhile", func(t *testing.T, path string) {
			testHookTempWritten = func(string) {
				if err := os.WriteFile(path, []byte("theirs"), 0o644); err != nil {
					t.Error(err)
				}
			}
		}, nil, ErrExists},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "c.yaml")
			if tt.prepare != nil {
				tt.prepare(t, path)
				defer func() { testHookTempWritten = nil }()
			}
			c := newCassette()
			err := SaveVerified(c, path, false, tt.verify)
			if !errors.Is(err, tt.want) {
				t.Fatalf("SaveVerified: %v, want %v", err, tt.want)
			}
			for _, n := range dirNames(t, dir) {
				if strings.HasSuffix(n, ".tmp") {
					t.Errorf("temporary file %s left after %v", n, err)
				}
			}
			if tt.want == refuse {
				if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("a refused cassette was saved: %v", err)
				}
			}
		})
	}
}
