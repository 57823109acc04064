package cassettes

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v4"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// Format names a recording format the importer reads.
type Format string

// The formats Import detects.
const (
	FormatGoVCR  Format = "go-vcr" // go-vcr v2 YAML (version: 2)
	FormatVCRPy  Format = "vcrpy"  // VCR.py YAML (interactions with uri, or requests and responses lists)
	FormatVCR    Format = "vcr"    // Ruby VCR YAML (http_interactions)
	FormatHTTPRR Format = "httprr" // httprr trace v1
	FormatChunks Format = "chunks" // one SSE data payload (or Bedrock event) per line
	FormatJSON   Format = "json"   // a non-streaming response body
	FormatSSE    Format = "sse"    // a raw SSE response body
	FormatHAR    Format = "har"    // HAR 1.2 as Polly.js persists it
	FormatDDAPM  Format = "ddapm"  // the Datadog APM test agent's VCR JSON
)

// Limits of the importer.
const (
	// MaxFileSize is the largest file Import reads.
	MaxFileSize = 64 << 20
	// MaxBodySize is the largest body Import produces, after decompression.
	MaxBodySize = 64 << 20
)

// ResponseOnlyHeader is the request header that marks an interaction whose
// request was not recorded: the importer made it up from the protocol's
// usual method and path, with an empty body. Matcher ignores the body of
// such requests.
const ResponseOnlyHeader = "X-Conform-Response-Only"

// Option configures Import and ImportFile.
type Option func(*options)

type options struct {
	protocol string
	format   Format
}

// WithProtocol sets the wire protocol of the file instead of guessing it.
func WithProtocol(name string) Option {
	return func(o *options) { o.protocol = name }
}

// WithFormat sets the recording format of the file instead of detecting it.
func WithFormat(f Format) Option {
	return func(o *options) { o.format = f }
}

// Result is an imported recording.
type Result struct {
	Cassette *cassette.Cassette
	Format   Format
	// Protocol is the wire protocol given or guessed; it may be "" for a
	// recording whose URLs say nothing clear.
	Protocol string
	// ResponseOnly reports that the source held no requests and that
	// every request in the cassette was made up (see ResponseOnlyHeader).
	ResponseOnly bool
	// Notes lists every change the importer made beyond reformatting, such
	// as decompressed bodies, one per line.
	Notes []string
	// secrets are the values redaction looked for: the keys of the
	// environment and every value it removed by name.
	secrets []string
}

// Save writes the imported cassette to path as Save does, looking, beside
// the keys of the environment, for every value the import removed by name:
// a cassette in which any decoded view still holds one is not written.
func (res *Result) Save(path string, force bool) error {
	return saveWith(res.Cassette, path, force, res.secrets, nil)
}

// ImportFile reads the recording at path, detects its format, converts it to
// a go-vcr v4 cassette and redacts it. Options may give the protocol or the
// format instead of guessing them.
//
//	c, err := cassettes.ImportFile("testdata/foo.httprr")
func ImportFile(path string, opts ...Option) (*cassette.Cassette, error) {
	res, err := ImportPath(path, opts...)
	if err != nil {
		return nil, err
	}
	return res.Cassette, nil
}

// ImportPath is ImportFile with the whole Result. A file that cannot be
// read is a plain error wrapping the os error; one that cannot be decoded
// is an *ImportError.
func ImportPath(path string, opts ...Option) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return nil, inFile(path, fmt.Errorf("file larger than %d bytes: %w", MaxFileSize, ErrTooLarge))
	}
	return Import(path, data, opts...)
}

// Import converts the recording data, read from the file called name, to a
// redacted go-vcr v4 cassette. The name is used for format detection (by
// extension), in error messages, and as the cassette's name.
func Import(name string, data []byte, opts ...Option) (*Result, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.protocol != "" && !knownProtocol(o.protocol) {
		return nil, inFile(name, fmt.Errorf("protocol %q: %w; known: %s", o.protocol, ErrUnknownProtocol, strings.Join(Protocols(), ", ")))
	}
	if len(data) > MaxFileSize {
		return nil, inFile(name, fmt.Errorf("file larger than %d bytes: %w", MaxFileSize, ErrTooLarge))
	}
	var notes []string
	if bytes.HasPrefix(data, []byte("\x1f\x8b")) {
		// A gzip-compressed recording (langchain-aws keeps its cassettes
		// as .yaml.gz): what is inside is imported, by its content.
		plain, err := gunzip(data)
		if err != nil {
			return nil, inFile(name, err)
		}
		notes = append(notes, fmt.Sprintf("gzip file decompressed (%d to %d bytes)", len(data), len(plain)))
		data, name = plain, strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".GZ")
	}
	format := o.format
	// root is the parsed YAML of a cassette, kept from detection so that
	// the file is parsed once.
	var root *yaml.Node
	if format == "" {
		var err error
		if format, root, err = detectFormat(name, data); err != nil {
			return nil, err
		}
	}
	if root == nil && (format == FormatGoVCR || format == FormatVCRPy || format == FormatVCR) {
		var err error
		if root, err = parseYAMLRoot(data); err != nil {
			return nil, yamlErr(name, err)
		}
	}
	res := &Result{Format: format, Protocol: o.protocol, Notes: notes}
	var err error
	switch format {
	case FormatGoVCR:
		err = importGoVCR(name, root, res)
	case FormatVCRPy:
		err = importVCRPy(name, root, res)
	case FormatVCR:
		err = importRubyVCR(name, root, res)
	case FormatHTTPRR:
		err = importHTTPRR(name, data, res)
	case FormatHAR:
		err = importHAR(name, data, res)
	case FormatDDAPM:
		err = importDDAPM(name, data, res)
	case FormatChunks, FormatJSON, FormatSSE:
		err = importFixture(name, data, res)
	default:
		err = inFile(name, fmt.Errorf("format %q: %w", format, ErrUnknownFormat))
	}
	if err != nil {
		return nil, err
	}
	if res.Protocol == "" {
		for _, i := range res.Cassette.Interactions {
			if p := GuessProtocol(i.Request.URL); p != "" {
				res.Protocol = p
				break
			}
		}
	} else if !res.ResponseOnly {
		if err := checkProtocol(name, res); err != nil {
			return nil, err
		}
	}
	c := res.Cassette
	c.Name = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	c.Matcher = Matcher
	for n, i := range c.Interactions {
		i.ID = n
	}
	redacted, known := redactAll(c.Interactions, EnvSecrets())
	res.secrets = known
	if len(redacted) > 0 {
		res.Notes = append(res.Notes, "redacted: "+strings.Join(redacted, ", "))
	}
	return res, nil
}

// DetectFormat tells the recording format of data, read from the file
// called name, by its content: httprr's first line, a YAML cassette's
// keys, SSE fields, a JSON document. The name is a hint only, for what
// content cannot tell: a .chunks.txt file (JSON lines) and the error for
// a file that is none of these.
func DetectFormat(name string, data []byte) (Format, error) {
	f, _, err := detectFormat(name, data)
	return f, err
}

// detectFormat is DetectFormat that also returns a cassette's parsed YAML.
func detectFormat(name string, data []byte) (Format, *yaml.Node, error) {
	lower := strings.ToLower(name)
	switch {
	case bytes.HasPrefix(data, []byte(httprrMagic)):
		return FormatHTTPRR, nil, nil
	case strings.HasSuffix(lower, ".chunks.txt"):
		return FormatChunks, nil, nil
	}
	if f, root, ok := detectYAML(data); ok {
		return f, root, nil
	}
	trimmed := bytes.TrimSpace(data)
	switch {
	case bytes.HasPrefix(trimmed, []byte("data:")), bytes.HasPrefix(trimmed, []byte("event:")):
		return FormatSSE, nil, nil
	case len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(trimmed):
		var obj map[string]json.RawMessage
		if json.Unmarshal(trimmed, &obj) == nil {
			switch {
			case isHAR(obj):
				return FormatHAR, nil, nil
			case isDDAPM(obj):
				return FormatDDAPM, nil, nil
			}
		}
		return FormatJSON, nil, nil
	case strings.HasSuffix(lower, ".sse"):
		return FormatSSE, nil, nil
	case strings.HasSuffix(lower, ".json"):
		return FormatJSON, nil, nil
	}
	if strings.HasSuffix(lower, ".yaml") || strings.HasSuffix(lower, ".yml") {
		// Say why a YAML file is not a cassette, rather than that its
		// format is unknown.
		root, err := parseYAMLRoot(data)
		if err != nil {
			return "", nil, yamlErr(name, err)
		}
		return "", nil, atLine(name, root.Line, fmt.Errorf("%w: YAML without an interactions, http_interactions or requests and responses list", ErrUnknownFormat))
	}
	return "", nil, inFile(name, fmt.Errorf("%w: not go-vcr, VCR.py or Ruby VCR YAML, httprr, HAR, test-agent JSON, .chunks.txt, JSON or SSE", ErrUnknownFormat))
}

// checkProtocol refuses a protocol given for a recording whose URLs say
// it is another one: none of them is the given protocol's and one is
// another's.
func checkProtocol(name string, res *Result) error {
	other := ""
	for _, i := range res.Cassette.Interactions {
		switch p := GuessProtocol(i.Request.URL); {
		case p == res.Protocol:
			return nil
		case p != "" && other == "":
			other = RedactURL(i.Request.URL) + " is " + p
		}
	}
	if other == "" {
		return nil
	}
	return inFile(name, fmt.Errorf("%w: protocol %q given, but the recorded URL %s", ErrProtocolMismatch, res.Protocol, other))
}

// CassetteName returns the file name conform gives the cassette imported
// from the file called name: name itself when it ends in .yaml, else name
// with ".yaml" added (a .gz suffix dropped first), so that fixtures differing only in extension
// (x.json, x.chunks.txt) stay apart and the source stays recognisable.
func CassetteName(name string) string {
	base := strings.TrimSuffix(filepath.Base(name), ".gz")
	if strings.HasSuffix(base, ".yaml") {
		return base
	}
	return base + ".yaml"
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// gunzip decompresses a gzip file of at most MaxFileSize bytes inside.
func gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: gzip: %v", ErrMalformed, err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%w: gzip: %v", ErrMalformed, err)
	}
	if len(out) > MaxFileSize {
		return nil, fmt.Errorf("gzip file larger than %d bytes inside: %w", MaxFileSize, ErrTooLarge)
	}
	return out, nil
}
