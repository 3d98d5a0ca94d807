package conformance

import "strconv"

// printable returns peer bytes as text safe for a terminal and a log:
// Go-escaped, and cut to max bytes of input with the full length noted.
// TODO(merge): replace with the shared escaping function of internal/sshwire.
func printable(s string, max int) string {
	if len(s) > max {
		q := strconv.Quote(s[:max])
		return q[1:len(q)-1] + "... (" + strconv.Itoa(len(s)) + " bytes)"
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}
