package cassettes

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v4"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// Marshal returns the cassette as go-vcr v4 YAML, the bytes Save writes:
// redacted copies of its interactions, numbered from 0 without gaps (those
// marked DiscardOnSave left out), after a "---" line.
// Bodies that are not valid UTF-8 (AWS event-stream frames) are written as
// !!binary and read back byte for byte. The cassette is not changed.
func Marshal(c *cassette.Cassette) ([]byte, error) {
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
		RedactInteraction(&cp)
		out.Interactions = append(out.Interactions, &cp)
	}
	data, err := yaml.Marshal(&out)
	if err != nil {
		return nil, fmt.Errorf("marshal cassette: %w", err)
	}
	return append([]byte("---\n"), data...), nil
}

// Save writes the cassette to path atomically: to a temporary file in the
// same directory, then renamed into place, so a reader never sees half a
// cassette. An existing file is kept and ErrExists returned unless force is
// set. Missing directories are created.
func Save(c *cassette.Cassette, path string, force bool) error {
	data, err := Marshal(c)
	if err != nil {
		return err
	}
	return WriteFile(path, data, force)
}

// WriteFile writes data to path atomically, as Save does.
func WriteFile(path string, data []byte, force bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save cassette: %w", err)
	}
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
	defer os.Remove(name) // a no-op once renamed or linked
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("save cassette %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("save cassette %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save cassette %s: %w", path, err)
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
