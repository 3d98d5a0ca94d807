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
// (server set) or a client, of the methods in within (nil: every one),
// with the soak (SoakCase) only when soak is set: an entry that would
// run nothing is an error. It returns the methods sel concerns: those
// its entries name, in pqkex check's order, or nil when an entry names
// no method (every method).
func ParseCases(sel []string, server bool, within []string, soak bool) ([]string, error) {
	var names []string
	all := false
	for _, e := range sel {
		method, id, ok := strings.Cut(e, "/")
		if !ok {
			method, id, all = "", e, true
		}
		if id == SoakCase && server && !soak {
			return nil, fmt.Errorf("%q: the soak runs only with -soak N", e)
		}
		found, excluded := false, false
		for _, m := range methods {
			if method != "" && m.name != method || !slices.Contains(caseIDsOf(m, server), id) {
				continue
			}
			if within != nil && !slices.Contains(within, m.name) {
				excluded = true
				continue
			}
			found = true
			if !slices.Contains(names, m.name) {
				names = append(names, m.name)
			}
		}
		switch {
		case excluded && !found:
			return nil, fmt.Errorf("%q names no case of the methods -kex gives (%s)", e, strings.Join(within, ","))
		case !found:
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
