package scenarios

import "strings"

// hasDiffLine reports whether a cmp.Diff text has a line marked sign ('-'
// for want, '+' for got) whose content, trimmed of spaces, is content.
// go-cmp's output is not stable (it varies its spacing on purpose), so only
// tests read it, and only through this helper.
func hasDiffLine(diff string, sign byte, content string) bool {
	for _, line := range strings.Split(diff, "\n") {
		line = strings.TrimLeft(strings.ReplaceAll(line, "\u00a0", " "), " \t")
		if len(line) > 0 && line[0] == sign && strings.TrimSpace(line[1:]) == content {
			return true
		}
	}
	return false
}
