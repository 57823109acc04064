package cassettes

import (
	"errors"
	"fmt"
)

// Sentinel errors callers may branch on with errors.Is.
var (
	// ErrUnknownFormat means a file is none of the recording formats the
	// importer knows.
	ErrUnknownFormat = errors.New("unknown recording format")
	// ErrUnknownProtocol means the wire protocol of a file could not be
	// guessed and was not given.
	ErrUnknownProtocol = errors.New("unknown protocol")
	// ErrProtocolMismatch means the protocol given for a recording
	// contradicts its recorded URLs.
	ErrProtocolMismatch = errors.New("protocol contradicts the recording")
	// ErrTruncated means a file ends before a length it declares.
	ErrTruncated = errors.New("truncated")
	// ErrMalformed means a file has the shape of a known format but breaks
	// its rules.
	ErrMalformed = errors.New("malformed recording")
	// ErrTooLarge means a file or a decompressed body exceeds a limit.
	ErrTooLarge = errors.New("too large")
	// ErrExists means a cassette file exists and overwriting was not forced.
	ErrExists = errors.New("cassette file exists")
)

// ImportError is an import failure with its place in the source file: a
// 1-based line for text formats, a byte offset for length-prefixed ones, or
// neither when the fault concerns the file as a whole.
type ImportError struct {
	File   string // the file name as given
	Line   int    // 1-based line, 0 when unknown
	Offset int64  // byte offset, -1 when unknown
	Err    error
}

func (e *ImportError) Error() string {
	switch {
	case e.Line > 0:
		return fmt.Sprintf("import %s:%d: %v", e.File, e.Line, e.Err)
	case e.Offset >= 0:
		return fmt.Sprintf("import %s: offset %d: %v", e.File, e.Offset, e.Err)
	default:
		return fmt.Sprintf("import %s: %v", e.File, e.Err)
	}
}

func (e *ImportError) Unwrap() error { return e.Err }

// atLine returns an ImportError for file at line.
func atLine(file string, line int, err error) error {
	return &ImportError{File: file, Line: line, Offset: -1, Err: err}
}

// atOffset returns an ImportError for file at byte offset off.
func atOffset(file string, off int64, err error) error {
	return &ImportError{File: file, Offset: off, Err: err}
}

// inFile returns an ImportError for file with no finer place.
func inFile(file string, err error) error {
	return &ImportError{File: file, Offset: -1, Err: err}
}
