package cassettes

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// Marshal returns the cassette as go-vcr v4 YAML, the bytes Save writes:
// redacted copies of its interactions (RedactInteraction, and every
// encoding of the secrets of EnvSecrets and of each value removed by name
// anywhere else), numbered from 0 without gaps (those marked
// DiscardOnSave left out), after a "---" line.
// Bodies that are not valid UTF-8 (AWS event-stream frames) are written as
// !!binary and read back byte for byte. The cassette is not changed.
func Marshal(c *cassette.Cassette) ([]byte, error) {
	data, _, err := marshal(c, EnvSecrets())
	return data, err
}

// marshal is Marshal with the secrets to remove, which returns every
// secret it looked for.
func marshal(c *cassette.Cassette, secrets []string) ([]byte, []string, error) {
	out := struct {
		Version      int                     `yaml:"version"`
		Interactions []*cassette.Interaction `yaml:"interactions"`
	}{Version: cassette.CassetteFormatVersion, Interactions: []*cassette.Interaction{}}
	for _, i := range c.Interactions {
		if i == nil || i.DiscardOnSave {
			continue
		}
		cp := *i
		cp.ID = len(out.Interactions)
		out.Interactions = append(out.Interactions, &cp)
	}
	_, known := redactAll(out.Interactions, secrets)
	data, err := yaml.Marshal(&out)
	if err != nil {
		return nil, nil, fmt.Errorf("marshal cassette: %w", err)
	}
	return append([]byte("---\n"), data...), known, nil
}

// Save writes the cassette to path atomically: to a temporary file in the
// same directory, then renamed into place, so a reader never sees half a
// cassette. An existing file is kept and ErrExists returned unless force is
// set. Missing directories are created. A cassette that, read back, still
// holds a secret the process knows (CheckSecrets: the keys of EnvSecrets
// and every value redaction removed by name) in any decoded view is not
// written: the error wraps ErrSecretLeft.
func Save(c *cassette.Cassette, path string, force bool) error {
	return SaveVerified(c, path, force, nil)
}

// SaveVerified is Save that reads the temporary file back from disk and
// hands its bytes to verify before it is put in place; an error from
// verify removes the temporary file and is returned, and path is left as
// it was. A nil verify checks nothing beyond Save's own check.
func SaveVerified(c *cassette.Cassette, path string, force bool, verify func(written []byte) error) error {
	return saveWith(c, path, force, EnvSecrets(), verify)
}

// saveWith is SaveVerified with the secrets to remove and look for.
func saveWith(c *cassette.Cassette, path string, force bool, secrets []string, verify func([]byte) error) error {
	data, known, err := marshal(c, secrets)
	if err != nil {
		return err
	}
	return writeFile(path, data, force, func(written []byte) error {
		if err := CheckSecrets(written, known...); err != nil {
			return err
		}
		if verify != nil {
			return verify(written)
		}
		return nil
	})
}

// WriteFile writes data to path atomically, as Save does.
func WriteFile(path string, data []byte, force bool) error {
	return writeFile(path, data, force, nil)
}

// runStart is when this process started: a temporary file last written
// before it was left by an earlier run.
var runStart = time.Now()

// testHookTempWritten, when set by a test, is called with the name of the
// temporary file once the data is in it and before it is put in place.
var testHookTempWritten func(tmp string)

// writeFile writes data to path through a temporary file called
// .<name>.<digits>.tmp in the same directory, locked while it is written
// (where the system has file locks), and removed on every error. Stale
// temporary files of the same target, left by a killed run, are removed
// first (removeStaleTemps).
func writeFile(path string, data []byte, force bool, verify func([]byte) error) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save cassette: %w", err)
	}
	removeStaleTemps(path)
	if !force {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("save cassette %s: %w (force to overwrite)", path, ErrExists)
		}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("save cassette: %w", err)
	}
	name := tmp.Name()
	defer func() {
		// The name goes before the lock, so no other run takes the
		// file for stale while it is still named. Removing is a no-op
		// once it is renamed.
		rerr := os.Remove(name)
		tmp.Close()
		if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			rerr = os.Remove(name) // systems that remove no open file
		}
		if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) && err == nil {
			err = fmt.Errorf("save cassette %s: remove temporary file: %w", path, rerr)
		}
	}()
	if err := lockTemp(tmp); err != nil {
		return fmt.Errorf("save cassette %s: lock temporary file: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("save cassette %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("save cassette %s: %w", path, err)
	}
	if testHookTempWritten != nil {
		testHookTempWritten(name)
	}
	if verify != nil {
		written, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("save cassette %s: read back: %w", path, err)
		}
		if err := verify(written); err != nil {
			return fmt.Errorf("save cassette %s: %w", path, err)
		}
	}
	if err := os.Chmod(name, 0o644); err != nil {
		return fmt.Errorf("save cassette %s: %w", path, err)
	}
	if force {
		if err := os.Rename(name, path); err != nil {
			return fmt.Errorf("save cassette %s: %w", path, err)
		}
		return nil
	}
	// A hard link fails if path appeared since the check above, so a file
	// created meanwhile is never overwritten.
	if err := os.Link(name, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("save cassette %s: %w (force to overwrite)", path, ErrExists)
		}
		// Some file systems have no hard links; fall back to rename.
		if err := os.Rename(name, path); err != nil {
			return fmt.Errorf("save cassette %s: %w", path, err)
		}
	}
	return nil
}

// removeStaleTemps removes the temporary files a killed run left beside
// path: only names of writeFile's own pattern for this target
// (.<name>.<digits>.tmp), regular files last written before this process
// started, and, where the system has file locks, not locked by a live
// writer. Nothing else is touched; a file that cannot be removed is left.
func removeStaleTemps(path string) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := "." + base + "."
	for _, e := range entries {
		digits, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		if digits, ok = strings.CutSuffix(digits, ".tmp"); !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
			continue
		}
		name := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(name)
		if err != nil || !fi.Mode().IsRegular() || !fi.ModTime().Before(runStart) || !unusedTemp(name) {
			continue
		}
		_ = os.Remove(name)
	}
}
