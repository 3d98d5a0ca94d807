package main

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The post-quantum hybrid key exchanges in use, by family. The two
// sntrup761 names are one method (the @openssh.com name is OpenSSH's
// pre-standard spelling of the same exchange).
const (
	kexMLKEM768X25519   = "mlkem768x25519-sha256"
	kexSNTRUP761        = "sntrup761x25519-sha512"
	kexSNTRUP761OpenSSH = "sntrup761x25519-sha512@openssh.com"
	kexMLKEM768P256     = "mlkem768nistp256-sha256"
	kexMLKEM1024P384    = "mlkem1024nistp384-sha384"
)

// standardPQKex are the hybrid methods stock clients implement today.
var standardPQKex = []string{kexMLKEM768X25519, kexSNTRUP761, kexSNTRUP761OpenSSH, kexMLKEM768P256, kexMLKEM1024P384}

// preStandardPQKex are hybrid methods of withdrawn drafts or vendor
// experiments: they do have a post-quantum component, but no stock client
// offers them any longer, so a server relying on them gets no
// post-quantum session with any client scan knows.
var preStandardPQKex = []string{
	"sntrup4591761x25519-sha512@tinyssh.org", // OpenSSH 8.0-8.4, withdrawn in 8.5
	"x25519-kyber-512r3-sha256-d00@amazon.com",
	"x25519-kyber512-sha512@aws.amazon.com",
	"ecdh-nistp256-kyber-512r3-sha256-d00@openquantumsafe.org",
	"ecdh-nistp384-kyber-768r3-sha384-d00@openquantumsafe.org",
	"ecdh-nistp521-kyber-1024r3-sha512-d00@openquantumsafe.org",
}

// isPQKex reports whether name is a hybrid post-quantum key exchange,
// standard or pre-standard.
func isPQKex(name string) bool {
	return slices.Contains(standardPQKex, name) || slices.Contains(preStandardPQKex, name)
}

// negotiateKex returns the key exchange a client with preference client
// and a server offering server agree on: the first name on the client's
// list that the server also lists (RFC 4253 §7.1), extension markers
// (ext-info-*, kex-strict-*) ignored on both sides. It returns "" when
// there is none. Host key compatibility, which §7.1 also requires, is not
// considered: every method here works with any signature host key.
func negotiateKex(client, server []string) string {
	for _, c := range client {
		if !isExtensionMarker(c) && slices.Contains(server, c) {
			return c
		}
	}
	return ""
}

// Verdicts, from best to worst. The strings are stable (JSON).
const (
	// verdictPQAll: every client scan knows would negotiate a hybrid.
	verdictPQAll = "pq-for-all-clients"
	// verdictPQSome: a hybrid is offered but some known clients would
	// negotiate a classical exchange.
	verdictPQSome = "pq-for-some-clients"
	// verdictPreStandard: only pre-standard hybrids, which no known
	// client offers.
	verdictPreStandard = "pre-standard-pq-only"
	// verdictNone: no hybrid at all.
	verdictNone = "no-pq"
)

// clientOutcome is what one client would negotiate with the server.
type clientOutcome struct {
	Client string `json:"client"`
	Source string `json:"source"`
	// Kex is the key exchange it would negotiate, "" when none.
	Kex string `json:"kex"`
	PQ  bool   `json:"post_quantum"`
}

// pqVerdict is scan's post-quantum assessment of a server.
type pqVerdict struct {
	Verdict string `json:"verdict"`
	// Offered are the hybrid methods the server lists, in its order;
	// PreStandard those of them that no stock client offers.
	Offered     []string `json:"pq_offered"`
	PreStandard []string `json:"pre_standard_pq_offered"`
	// FirstIsPQ: the server's first key exchange is a hybrid. The
	// client's order decides the negotiation (RFC 4253 §7.1), so this is
	// informational.
	FirstIsPQ       bool            `json:"pq_first"`
	Clients         []clientOutcome `json:"clients"`
	Recommendations []string        `json:"recommendations"`
}

var openSSHVersion = regexp.MustCompile(`^SSH-2\.0-OpenSSH_([0-9]+)\.([0-9]+)`)

// openSSHServerVersion returns the OpenSSH major and minor version of a
// server's identification line, ok false when it is not OpenSSH's.
func openSSHServerVersion(ident string) (major, minor int, ok bool) {
	m := openSSHVersion.FindStringSubmatch(ident)
	if m == nil {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(m[1])
	minor, err2 := strconv.Atoi(m[2])
	return major, minor, err1 == nil && err2 == nil
}

// assessPQ returns the post-quantum verdict for a server whose
// identification line is ident and whose KEXINIT lists serverKex (markers
// included or not), against clients. It is a pure function of its
// arguments. Its recommendations only ever add or keep post-quantum
// methods: removing one can only take post-quantum sessions away from
// some client.
func assessPQ(ident string, serverKex []string, clients []clientProfile) *pqVerdict {
	v := &pqVerdict{Offered: []string{}, PreStandard: []string{}, Clients: []clientOutcome{}, Recommendations: []string{}}
	var real []string
	for _, k := range serverKex {
		if isExtensionMarker(k) {
			continue
		}
		real = append(real, k)
		if isPQKex(k) {
			v.Offered = append(v.Offered, k)
			if slices.Contains(preStandardPQKex, k) {
				v.PreStandard = append(v.PreStandard, k)
			}
		}
	}
	v.FirstIsPQ = len(real) > 0 && isPQKex(real[0])
	var classical []string
	for _, c := range clients {
		k := negotiateKex(c.Kex, real)
		o := clientOutcome{Client: c.Client, Source: c.Source, Kex: k, PQ: isPQKex(k)}
		v.Clients = append(v.Clients, o)
		if !o.PQ {
			classical = append(classical, c.Client)
		}
	}
	standard := len(v.Offered) - len(v.PreStandard)
	switch {
	case len(v.Offered) == 0:
		v.Verdict = verdictNone
	case standard == 0:
		v.Verdict = verdictPreStandard
	case len(classical) > 0:
		v.Verdict = verdictPQSome
	default:
		v.Verdict = verdictPQAll
	}

	has := func(name string) bool { return slices.Contains(real, name) }
	major, minor, isOpenSSH := openSSHServerVersion(ident)
	family, release, known := serverRelease(ident)
	rec := func(format string, args ...any) {
		v.Recommendations = append(v.Recommendations, fmt.Sprintf(format, args...))
	}

	var keep []string
	for _, k := range v.Offered {
		if !slices.Contains(v.PreStandard, k) {
			keep = append(keep, k)
		}
	}
	if len(keep) > 0 {
		rec("keep %s: removing a hybrid takes post-quantum sessions away from the clients that offer only it", strings.Join(keep, ", "))
	}
	if !has(kexMLKEM768X25519) {
		switch {
		case isOpenSSH && (major > 9 || major == 9 && minor >= 9):
			rec("add mlkem768x25519-sha256 to sshd_config's KexAlgorithms: OpenSSH %d.%d implements it; it is the standard hybrid (FIPS 203 ML-KEM) and OpenSSH 10 clients' first choice", major, minor)
		case isOpenSSH:
			rec("add mlkem768x25519-sha256: upgrade from OpenSSH %d.%d to >= 9.9 (10.0 offers it by default); it is the standard hybrid (FIPS 203 ML-KEM) and OpenSSH 10 clients' first choice", major, minor)
		case known:
			rec("add mlkem768x25519-sha256: %s; it is the standard hybrid (FIPS 203 ML-KEM) and OpenSSH 10 clients' first choice", family.advice(release, family.mlkem, family.mlkemHow))
		default:
			rec("add mlkem768x25519-sha256 (OpenSSH >= 9.9, PuTTY >= 0.83, x/crypto/ssh >= v0.38.0, pqkex): the standard hybrid (FIPS 203 ML-KEM) and OpenSSH 10 clients' first choice")
		}
	}
	if !has(kexSNTRUP761OpenSSH) {
		switch {
		case isOpenSSH && (major > 8 || major == 8 && minor >= 5):
			rec("add sntrup761x25519-sha512@openssh.com to sshd_config's KexAlgorithms: OpenSSH %d.%d implements it and OpenSSH 9.0-9.8 clients offer no other hybrid", major, minor)
		case known:
			rec("add sntrup761x25519-sha512@openssh.com: %s; OpenSSH 9.0-9.8 clients offer no other hybrid", family.advice(release, family.sntrup, family.sntrupHow))
		case !isOpenSSH:
			rec("add sntrup761x25519-sha512@openssh.com if the server's software implements it: OpenSSH 9.0-9.8 clients offer no other hybrid")
		}
	}
	if len(v.PreStandard) > 0 {
		rec("%s: pre-standard hybrid(s) that no stock client offers; they give no client a post-quantum session", strings.Join(v.PreStandard, ", "))
	}
	if len(v.Offered) > 0 && !v.FirstIsPQ {
		rec("optionally list a hybrid first: the client's order decides which method is used (RFC 4253 section 7.1), so this changes nothing for the clients above")
	}
	if len(classical) > 0 && len(v.Offered) > 0 {
		rec("clients that would negotiate a classical exchange: %s", strings.Join(classical, ", "))
	}
	return v
}

// pqFamily is an SSH implementation other than OpenSSH whose release
// scan reads from a server's identification line, with the first
// releases implementing the two hybrids clients use most and where they
// are switched on. (OpenSSH has its own branches above: it is the one
// configured through sshd_config.)
type pqFamily struct {
	name                string
	ident               *regexp.Regexp // its release's numbers, as submatches
	mlkem, sntrup       []int          // first release with mlkem768x25519-sha256, with sntrup761x25519-sha512@openssh.com
	mlkemHow, sntrupHow string
}

// pqFamilies: dropbear's CHANGES (2025.87: both sntrup761 names and
// mlkem768x25519-sha256, on by default in default_options.h), PuTTY's
// release notes (0.78: NTRU Prime; 0.83: ML-KEM), libssh's CHANGELOG
// (0.12.0: every hybrid).
var pqFamilies = []*pqFamily{
	{name: "dropbear", ident: regexp.MustCompile(`^SSH-2\.0-dropbear_([0-9]+)\.([0-9]+)`), mlkem: []int{2025, 87}, sntrup: []int{2025, 87},
		mlkemHow:  "this one was built without it: build it with DROPBEAR_MLKEM768 set in localoptions.h (the default)",
		sntrupHow: "this one was built without it: build it with DROPBEAR_SNTRUP761 set in localoptions.h (the default)"},
	{name: "PuTTY", ident: regexp.MustCompile(`^SSH-2\.0-PuTTY_Release_([0-9]+)\.([0-9]+)`), mlkem: []int{0, 83}, sntrup: []int{0, 78},
		mlkemHow: "enable it in its key exchange settings", sntrupHow: "enable it in its key exchange settings"},
	{name: "libssh", ident: regexp.MustCompile(`^SSH-2\.0-libssh[_-]([0-9]+)\.([0-9]+)\.([0-9]+)`), mlkem: []int{0, 12, 0}, sntrup: []int{0, 12, 0},
		mlkemHow:  "add it to the server's key exchange list (SSH_BIND_OPTIONS_KEY_EXCHANGE)",
		sntrupHow: "add it to the server's key exchange list (SSH_BIND_OPTIONS_KEY_EXCHANGE)"},
}

// serverRelease returns the family and release numbers of a server's
// identification line, ok false when it is none of pqFamilies'.
func serverRelease(ident string) (*pqFamily, []int, bool) {
	for _, f := range pqFamilies {
		m := f.ident.FindStringSubmatch(ident)
		if m == nil {
			continue
		}
		var rel []int
		for _, x := range m[1:] {
			n, err := strconv.Atoi(x)
			if err != nil {
				return nil, nil, false
			}
			rel = append(rel, n)
		}
		return f, rel, true
	}
	return nil, nil, false
}

// advice says what to do about a method the server does not offer: turn
// it on if its release implements it (since first), else upgrade.
func (f *pqFamily) advice(release, first []int, how string) string {
	if slices.Compare(release, first) >= 0 {
		return fmt.Sprintf("%s %s implements it (since %s): %s", f.name, dotted(release), dotted(first), how)
	}
	return fmt.Sprintf("upgrade from %s %s to %s or later, which implements it", f.name, dotted(release), dotted(first))
}

// dotted writes a release's numbers.
func dotted(r []int) string {
	parts := make([]string, len(r))
	for i, n := range r {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ".")
}

// printPQVerdict prints v for a terminal: the verdict, what each known
// client would negotiate, the recommendations. Server-chosen names are
// printed only if they are names scan knows (Offered, Kex of a client's
// own list), so no escaping is needed.
func printPQVerdict(w io.Writer, v *pqVerdict) {
	fmt.Fprintf(w, "post-quantum  %s\n", v.Verdict)
	if len(v.Offered) > 0 {
		first := "no"
		if v.FirstIsPQ {
			first = "yes"
		}
		fmt.Fprintf(w, "  hybrids offered: %s (a hybrid first: %s)\n", strings.Join(v.Offered, ", "), first)
	}
	fmt.Fprintln(w, "  what each client would negotiate with its default settings (RFC 4253 section 7.1):")
	for _, c := range v.Clients {
		k, mark := c.Kex, "  "
		if k == "" {
			k = "none in common"
		}
		if c.PQ {
			mark = "PQ"
		}
		fmt.Fprintf(w, "    %-32s %s  %s\n", c.Client, mark, k)
	}
	if len(v.Recommendations) > 0 {
		fmt.Fprintln(w, "  recommendations:")
		for _, r := range v.Recommendations {
			fmt.Fprintf(w, "    - %s\n", strings.Join(wrapWords(r, 100-6), "\n      "))
		}
	}
}

// wrapWords splits s at spaces into lines of at most width bytes (a
// longer word stays whole on its own line).
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	return append(lines, line)
}
