package serve

import "time"

// timeAfter waits ms milliseconds.
func timeAfter(ms int) <-chan time.Time { return time.After(time.Duration(ms) * time.Millisecond) }
