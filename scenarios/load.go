package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// builtin holds the built-in scenarios, so that a module outside this one
// can run them.
//
//go:embed cases
var builtin embed.FS

// BuiltinRoot is the directory of the built-in scenarios inside Builtin().
const BuiltinRoot = "cases"

// Builtin returns the file system that holds the built-in scenarios under
// BuiltinRoot.
func Builtin() fs.FS { return builtin }

// LoadBuiltin loads the built-in scenarios. Those generated from
// recordings reference cassettes of package cassettes by name; pass
// VCRResolver(cassettes.Load) to resolve them. (Package scenarios does not
// import package cassettes, which sits below it in the package order.)
func LoadBuiltin(resolve CassetteResolver) ([]*Scenario, error) {
	return Load(builtin, BuiltinRoot, resolve)
}

// MaxScenarioSize is the largest scenario file Load reads, and the largest
// response body a cassette reference may resolve to.
const MaxScenarioSize = 32 << 20

// ErrTooLarge reports a scenario file or a referenced body above
// MaxScenarioSize.
var ErrTooLarge = errors.New("scenario too large")

// CassetteResolver returns the response body of a cassette reference of the
// form "path#interaction".
type CassetteResolver func(ref string) ([]byte, error)

// Load parses every .txtar file under root in fsys, in name order. A
// scenario's name is its path below root without the extension. Other files
// are errors, so that a misnamed scenario is never silently ignored; .md
// files and cassettes (.yaml) are allowed.
//
// A cassette reference ("a05.yaml#0") names a file relative to the
// scenario file that makes it, as a link in a document does: when fsys has
// that file, it is read from there (FSResolver), wherever the process runs.
// Any other reference goes to resolve, which may read a corpus of its own
// (the built-in cases name cassettes of package cassettes).
func Load(fsys fs.FS, root string, resolve CassetteResolver) ([]*Scenario, error) {
	var out []*Scenario
	var errs []error
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".yaml") {
			return nil
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, root), "/")
		name, ok := strings.CutSuffix(rel, ".txtar")
		if !ok {
			errs = append(errs, &ParseError{File: p, Err: fmt.Errorf("%w: not a .txtar file", ErrBadScenario)})
			return nil
		}
		if info, err := d.Info(); err == nil && info.Size() > MaxScenarioSize {
			errs = append(errs, &ParseError{File: p, Err: fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, info.Size(), MaxScenarioSize)})
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return fmt.Errorf("load scenarios: %w", err)
		}
		sc, err := Parse(name, p, data, relativeResolver(fsys, path.Dir(p), resolve))
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		out = append(out, sc)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load scenarios: %w", err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	slices.SortFunc(out, func(a, b *Scenario) int { return strings.Compare(a.Name, b.Name) })
	if err := checkNames(out); err != nil {
		return nil, fmt.Errorf("load scenarios: %w", err)
	}
	return out, nil
}

// relativeResolver resolves a reference whose file is in fsys relative to
// dir against fsys, and any other with resolve.
func relativeResolver(fsys fs.FS, dir string, resolve CassetteResolver) CassetteResolver {
	return func(ref string) ([]byte, error) {
		file, num, ok := strings.Cut(ref, "#")
		if ok && !path.IsAbs(file) {
			local := path.Join(dir, file)
			if fi, err := fs.Stat(fsys, local); err == nil && fi.Mode().IsRegular() {
				return FSResolver(fsys)(local + "#" + num)
			}
		}
		if resolve == nil {
			return nil, fmt.Errorf("resolve cassette %q: no file %s beside the scenario, and no cassette resolver given", ref, file)
		}
		return resolve(ref)
	}
}

// ErrNameClash is wrapped by NameClashError.
var ErrNameClash = errors.New("two scenarios expand to one result name")

// NameClashError reports two scenarios whose results would carry the same
// name on some protocol: a case declared for every protocol (any/C/N) and a
// protocol-specific case P/C/N that the first also applies to. Reports and
// --run patterns could not tell their results apart.
type NameClashError struct {
	// Name is the result name both scenarios produce.
	Name string
	// Files are the two scenario files, the canonical one first.
	Files [2]string
}

func (e *NameClashError) Error() string {
	return fmt.Sprintf("%v: %s from %s and %s", ErrNameClash, e.Name, e.Files[0], e.Files[1])
}

func (e *NameClashError) Unwrap() error { return ErrNameClash }

// checkNames returns a NameClashError (joined, one per clash) for every
// pair of cases whose result names coincide on a protocol: a case expanded
// over adapters whose name, with the protocol in place of "any", is the
// name of a protocol-specific case it applies to, or two cases of the same
// name (from separate loads). Load calls it; Check checks the names it
// actually produces as well.
func checkNames(cases []*Scenario) error {
	specific := map[string]*Scenario{}
	var errs []error
	for _, sc := range cases {
		if sc.ForAnyProtocol() {
			continue
		}
		if prev, ok := specific[sc.Name]; ok {
			errs = append(errs, &NameClashError{Name: sc.Name, Files: [2]string{prev.File, sc.File}})
			continue
		}
		specific[sc.Name] = sc
	}
	bySuffix := map[string][]*Scenario{}
	for _, sc := range specific {
		_, rest, _ := strings.Cut(sc.Name, "/")
		bySuffix[rest] = append(bySuffix[rest], sc)
	}
	canonical := map[string]*Scenario{}
	for _, sc := range cases {
		if !sc.ForAnyProtocol() {
			continue
		}
		if prev, ok := canonical[sc.Name]; ok {
			errs = append(errs, &NameClashError{Name: sc.Name, Files: [2]string{prev.File, sc.File}})
			continue
		}
		canonical[sc.Name] = sc
		rest := strings.TrimPrefix(sc.Name, AnyProtocol+"/")
		for _, other := range bySuffix[rest] {
			proto, _, _ := strings.Cut(other.Name, "/")
			if sc.declaredFor(proto) {
				errs = append(errs, &NameClashError{Name: other.Name, Files: [2]string{sc.File, other.File}})
			}
		}
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}

// ErrBadCassetteRef is returned for a cassette reference that is not
// "path#interaction" or names no interaction of the file.
var ErrBadCassetteRef = errors.New("bad cassette reference")

// FSResolver resolves cassette references against fsys. The cassette must
// be a go-vcr YAML file (format version 2 or 4: interactions[].response.body);
// the interaction is its 0-based position in the file.
func FSResolver(fsys fs.FS) CassetteResolver {
	return func(ref string) ([]byte, error) {
		file, num, ok := strings.Cut(ref, "#")
		if !ok {
			return nil, fmt.Errorf("%w %q: want path#interaction", ErrBadCassetteRef, ref)
		}
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%w %q: interaction %q is not a non-negative number", ErrBadCassetteRef, ref, num)
		}
		data, err := fs.ReadFile(fsys, path.Clean(file))
		if err != nil {
			return nil, fmt.Errorf("read cassette: %w", err)
		}
		var c struct {
			Interactions []struct {
				Response struct {
					Body string `yaml:"body"`
				} `yaml:"response"`
			} `yaml:"interactions"`
		}
		if err := yaml.Unmarshal(data, &c); err != nil {
			return nil, fmt.Errorf("read cassette %s: %w", file, err)
		}
		if n >= len(c.Interactions) {
			return nil, fmt.Errorf("%w %q: the cassette has %d interactions", ErrBadCassetteRef, ref, len(c.Interactions))
		}
		return []byte(c.Interactions[n].Response.Body), nil
	}
}

// VCRResolver resolves cassette references with load, such as
// cassettes.Load, which reads the corpus built into package cassettes by
// names like "openai-chat/fantasy__x.yaml". The interaction is its 0-based
// position in the cassette.
func VCRResolver(load func(name string) (*cassette.Cassette, error)) CassetteResolver {
	return func(ref string) ([]byte, error) {
		file, num, ok := strings.Cut(ref, "#")
		if !ok {
			return nil, fmt.Errorf("%w %q: want path#interaction", ErrBadCassetteRef, ref)
		}
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%w %q: interaction %q is not a non-negative number", ErrBadCassetteRef, ref, num)
		}
		c, err := load(file)
		if err != nil {
			return nil, err
		}
		if n >= len(c.Interactions) {
			return nil, fmt.Errorf("%w %q: the cassette has %d interactions", ErrBadCassetteRef, ref, len(c.Interactions))
		}
		return []byte(c.Interactions[n].Response.Body), nil
	}
}
