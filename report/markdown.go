package report

import (
	"bytes"
	"io"

	"github.com/toolconform/conform/publish"
)

// WriteMarkdown writes the report as the markdown summary publish writes
// for any result file (a GitHub step summary, a pull-request comment): the
// JSON report read back, so that every kind of run reads alike.
func (rep *Report) WriteMarkdown(w io.Writer) error {
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		return err
	}
	run, err := publish.Read("report", b.Bytes(), "")
	if err != nil {
		return err
	}
	return publish.WriteMarkdown(w, publish.Subjects([]*publish.Run{run}))
}
