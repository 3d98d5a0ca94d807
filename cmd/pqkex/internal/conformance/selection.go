package conformance

// Selecting cases by name (check -case): to re-run one case of a peer,
// its transcript with it.

import (
	"fmt"
	"slices"
	"strings"
)

// selected reports whether sel (nil: every case) selects case id of the
// method named: an entry "METHOD/CASE" or "CASE".
func selected(sel []string, method, id string) bool {
	if sel == nil {
		return true
	}
	for _, e := range sel {
		if m, c, ok := strings.Cut(e, "/"); ok && m == method && c == id || !ok && e == id {
			return true
		}
	}
	return false
}

// ParseCases checks sel, cases named "METHOD/CASE" or "CASE" (that case
// of every method), against the cases pqkex check runs against a server
// (server set) or a client, and returns the methods sel concerns: those
// its entries name, in pqkex check's order, or nil when an entry names
// no method (every method).
func ParseCases(sel []string, server bool) ([]string, error) {
	var names []string
	all := false
	for _, e := range sel {
		method, id, ok := strings.Cut(e, "/")
		if !ok {
			method, id, all = "", e, true
		}
		found := false
		for _, m := range methods {
			if method != "" && m.name != method {
				continue
			}
			if slices.Contains(caseIDsOf(m, server), id) {
				found = true
				if !slices.Contains(names, m.name) {
					names = append(names, m.name)
				}
			}
		}
		if !found {
			role := "a client"
			if server {
				role = "a server"
			}
			return nil, fmt.Errorf("%q names no case pqkex check runs against %s (METHOD/CASE or CASE; the cases are in docs/usage.md)", e, role)
		}
	}
	if all {
		return nil, nil
	}
	slices.SortFunc(names, func(a, b string) int { return slices.Index(Methods(), a) - slices.Index(Methods(), b) })
	return names, nil
}

// caseIDsOf are m's case ids against a server (server set) or a client.
func caseIDsOf(m *method, server bool) []string {
	var ids []string
	if server {
		for _, c := range serverCases(m) {
			ids = append(ids, c.id)
		}
		return append(ids, SoakCase) // run with -soak N
	}
	for _, c := range clientCases(m) {
		ids = append(ids, c.id)
	}
	return ids
}
