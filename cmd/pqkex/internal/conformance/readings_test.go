package conformance

import (
	"strings"
	"testing"
)

// TestCInitReadings: a server that takes a wrong-length C_INIT is told
// apart by the reading its signature verifies under: the C_INIT it was
// sent, or the one it used (zero-extended, or cut to length); the honest
// server refuses both.
func TestCInitReadings(t *testing.T) {
	m := methods[0]
	for _, c := range []struct {
		d    defect
		want map[string]string
	}{
		{srvLenSent, map[string]string{"c-init-short": "hashed C_INIT as sent", "c-init-long": "hashed C_INIT as sent"}},
		{srvLenUsed, map[string]string{"c-init-short": "hashed C_INIT as it used it, zero-extended", "c-init-long": "hashed C_INIT as it used it, cut to its length"}},
	} {
		for _, r := range checkSimServer(simServer(t, c.d), m, []string{"c-init-short", "c-init-long"}) {
			if r.Verdict != Replied || !strings.Contains(r.Detail, "its signature verifies over H with the honest K: the server "+c.want[r.Case]) {
				t.Errorf("%s: %s: %s: %s, want replied and the reading %q", c.d, r.Case, r.Observed(), r.Detail, c.want[r.Case])
			}
		}
	}
}
