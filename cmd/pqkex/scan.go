package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/sshkex"
	"golang.org/x/crypto/ssh"
)

// extensionMarkers are the names a KEXINIT lists among its key exchanges
// that are not key exchanges but signal protocol extensions.
var extensionMarkers = map[string]string{
	"ext-info-c":                   "extension negotiation, RFC 8308",
	"ext-info-s":                   "extension negotiation, RFC 8308",
	"kex-strict-c-v00@openssh.com": "strict key exchange, the Terrapin countermeasure",
	"kex-strict-s-v00@openssh.com": "strict key exchange, the Terrapin countermeasure",
	"kexguess2@matt.ucc.asn.au":    "dropbear's key exchange guess, a variant of first_kex_packet_follows",
}

// isExtensionMarker reports whether a kex_algorithms name is an extension
// marker rather than a key exchange (including future versions of the
// two families above).
func isExtensionMarker(name string) bool {
	_, ok := extensionMarkers[name]
	return ok || strings.HasPrefix(name, "ext-info-") || strings.HasPrefix(name, "kex-strict-") || strings.HasPrefix(name, "kexguess")
}

// knownKex returns every key exchange name scan and serve accept in -kex:
// pqkex's and those x/crypto/ssh implements, insecure ones included.
func knownKex() []string {
	names := []string{sshkex.KeyExchangeMLKEM768X25519, sshkex.KeyExchangeSNTRUP761X25519, sshkex.KeyExchangeSNTRUP761X25519OpenSSH,
		sshkex.KeyExchangeMLKEM768NISTP256, sshkex.KeyExchangeMLKEM1024NISTP384}
	names = append(names, ssh.SupportedAlgorithms().KeyExchanges...)
	names = append(names, ssh.InsecureAlgorithms().KeyExchanges...)
	slices.Sort(names)
	return slices.Compact(names)
}

// listFlag is the list a flag's value gives through parse, or def when
// the flag is empty (not given). On a parse error it prints the error for
// the verb and reports false: a usage error, exit status 2.
func listFlag(verb, value string, def []string, parse func(string) ([]string, error), stderr io.Writer) ([]string, bool) {
	if value == "" {
		return def, true
	}
	list, err := parse(value)
	if err != nil {
		fmt.Fprintln(stderr, "pqkex "+verb+":", err)
		return nil, false
	}
	return list, true
}

// parseKexList splits a -kex value and rejects names that are not key
// exchanges pqkex or x/crypto implement.
func parseKexList(s string) ([]string, error) {
	names := splitList(s)
	if len(names) == 0 {
		return nil, errors.New("-kex lists no key exchange")
	}
	known := knownKex()
	for _, n := range names {
		if !slices.Contains(known, n) {
			return nil, fmt.Errorf("-kex: unknown key exchange %q (known: %s)", n, strings.Join(known, ","))
		}
	}
	return names, nil
}

// scanResult is what scan prints (-json prints it as is). The lists are
// never null: [] when there is nothing (or on an error before the
// server's KEXINIT).
type scanResult struct {
	Tool          string   `json:"tool"`
	Host          string   `json:"host"`
	ServerVersion string   `json:"server_version"`
	KexOffered    []string `json:"kex_offered"`
	PQOffered     []string `json:"pq_offered"`
	Extensions    []string `json:"extensions_offered"`
	HostKeyAlgos  []string `json:"host_key_algorithms"`
	Selected      string   `json:"selected"`
	PQ            bool     `json:"post_quantum"`
	HostKeyType   string   `json:"host_key_type,omitempty"`
	Fingerprint   string   `json:"host_key_fingerprint,omitempty"`
	ElapsedMS     float64  `json:"elapsed_ms,omitempty"`
	Error         string   `json:"error,omitempty"`
	// PQVerdict is the post-quantum assessment (pqverdict.go), present
	// once the server's KEXINIT was read.
	PQVerdict *pqVerdict `json:"pq_verdict,omitempty"`
}

// scanFlags are "pqkex scan"'s flags.
type scanFlags struct {
	kex     *string
	timeout *time.Duration
	json    *bool
}

func newScanFlags(fs *flag.FlagSet) *scanFlags {
	return &scanFlags{
		kex:     fs.String("kex", "", "comma-separated client key exchange preference (default: pqkex's PQ-first list)"),
		timeout: fs.Duration("timeout", 10*time.Second, "timeout for each connection"),
		json:    fs.Bool("json", false, "print the result as JSON"),
	}
}

// runScan implements "pqkex scan". Exit status: 0 when a post-quantum key
// exchange was negotiated, or the server offers a standard one that -kex
// did not list; 3 when the server offers none that a current client uses
// (no hybrid, or only pre-standard ones); 1 when scan could not complete
// (no connection, a refusal, not SSH, no key exchange in common, a
// failed key exchange: the message says which).
func runScan(args []string, stdout, stderr io.Writer) int {
	opt, fs, code, done := parseVerb("scan", newScanFlags, args, stdout, stderr)
	if done {
		return code
	}
	kex, timeout, asJSON := opt.kex, opt.timeout, opt.json
	addr := fs.Arg(0)
	if _, _, err := net.SplitHostPort(addr); err != nil {
		addr = net.JoinHostPort(addr, "22")
	}
	if err := sshkex.Register(); err != nil {
		fmt.Fprintln(stderr, "pqkex scan:", err)
		return 1
	}
	prefs, ok := listFlag("scan", *kex, sshkex.RecommendedKeyExchanges(), parseKexList, stderr)
	if !ok {
		return 2
	}

	res, err := scan(addr, prefs, *timeout)
	if err != nil {
		res.Error = err.Error()
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false) // what a server sent, as Go quoted it
		enc.Encode(res)
	} else if res.ServerVersion != "" {
		// Nothing on stdout when there is no server to describe: the
		// error alone, on stderr.
		printScan(stdout, res)
	}
	var standard, preStandard []string
	for _, k := range res.PQOffered {
		if slices.Contains(preStandardPQKex, k) {
			preStandard = append(preStandard, k)
		} else {
			standard = append(standard, k)
		}
	}
	say := func(msg string) {
		if !*asJSON {
			printWrapped(stderr, "pqkex scan: "+msg, "  ")
		}
	}
	switch {
	case err != nil:
		say(err.Error())
		return 1
	case len(standard) == 0 && len(preStandard) > 0:
		// Withdrawn drafts: no current client offers them, so no client
		// gets a post-quantum session.
		say(fmt.Sprintf("%s offers only pre-standard hybrids (%s), which no current client offers: no client gets a post-quantum "+
			"session with it (verdict %s); it needs a standard hybrid, mlkem768x25519-sha256 or sntrup761x25519-sha512", addr,
			strings.Join(preStandard, ", "), verdictPreStandard))
		return 3
	case len(standard) > 0 && !res.PQ && *kex != "":
		// The server has post-quantum key exchange; the -kex list asked
		// for none of it. Nothing to upgrade: say what was negotiated.
		say(fmt.Sprintf("%s offers post-quantum key exchange (%s), but -kex listed none of it, so %s was negotiated",
			addr, strings.Join(standard, ", "), res.Selected))
		return 0
	case len(standard) > 0 && !res.PQ:
		// pqkex's own list lacks the server's hybrids (FIPS 140-3 mode
		// leaves the X25519 ones out): other clients get them.
		say(fmt.Sprintf("%s offers post-quantum key exchange (%s), which pqkex's client does not offer here (FIPS 140-3 mode?), so %s was negotiated",
			addr, strings.Join(standard, ", "), res.Selected))
		return 0
	case len(res.PQOffered) == 0:
		if !*asJSON {
			fmt.Fprintf(stderr, "WARNING: connection to %s is not using a post-quantum key exchange algorithm.\n"+
				"This session may be vulnerable to \"store now, decrypt later\" attacks.\n"+
				"The server may need to be upgraded. See https://openssh.com/pq.html\n", addr)
		}
		return 3
	}
	return 0
}

// peerTextBudget bounds, in bytes, each piece of a server's text that
// scan prints in text mode (a name, a version line, an error carrying
// the server's names or disconnect message); sshwire.Printable and
// Quote cut longer ones and note their length.
const peerTextBudget = 512

func printScan(w io.Writer, r *scanResult) {
	fmt.Fprintf(w, "server      %s  %s\n", r.Host, printable(r.ServerVersion))
	if len(r.KexOffered) == 0 {
		return
	}
	fmt.Fprintln(w, "key exchanges offered (PQ = post-quantum hybrid):")
	for _, k := range r.KexOffered {
		mark := "  "
		if isPQKex(k) {
			mark = "PQ"
		}
		fmt.Fprintf(w, "  %s  %s\n", mark, printable(k))
	}
	if len(r.Extensions) > 0 {
		fmt.Fprintln(w, "extension markers (listed with the key exchanges, not key exchanges):")
		for _, e := range r.Extensions {
			if what, ok := extensionMarkers[e]; ok {
				fmt.Fprintf(w, "      %s (%s)\n", e, what)
			} else {
				fmt.Fprintf(w, "      %s\n", printable(e))
			}
		}
	}
	if r.Selected == "" {
		fmt.Fprintln(w, "selected    none: no key exchange in common")
	} else {
		fmt.Fprintf(w, "selected    %s (first of our preferences the server offers)\n", r.Selected)
		if r.HostKeyType != "" {
			fmt.Fprintf(w, "negotiated  %s, host key %s %s, %.1f ms\n", r.Selected, r.HostKeyType, r.Fingerprint, r.ElapsedMS)
		}
	}
	if r.PQVerdict != nil {
		printPQVerdict(w, r.PQVerdict)
	}
}

// printable returns s as it is if it is printable text, else Go-quoted
// (sshwire.Printable), and cut to peerTextBudget: the server chooses its
// version line and algorithm names, and must not be able to send escape
// sequences to the terminal.
func printable(s string) string { return sshwire.Printable(s, peerTextBudget) }

var errScanDone = errors.New("scan: key exchange complete")

// scan reads the server's KEXINIT, then completes a key exchange with the
// client preference prefs and stops before authentication.
func scan(addr string, prefs []string, timeout time.Duration) (*scanResult, error) {
	res := &scanResult{Tool: pqkexVersion(), Host: addr, KexOffered: []string{}, PQOffered: []string{}, Extensions: []string{}, HostKeyAlgos: []string{}}
	version, ki, err := readServerKexInit(addr, timeout)
	res.ServerVersion = version
	if err != nil {
		return res, err
	}
	res.HostKeyAlgos = append(res.HostKeyAlgos, ki.HostKeyAlgos...)
	res.PQVerdict = assessPQ(version, ki.KexAlgos, stockClients())
	for _, k := range ki.KexAlgos {
		switch {
		case isExtensionMarker(k):
			res.Extensions = append(res.Extensions, k)
		case isPQKex(k):
			res.PQOffered = append(res.PQOffered, k)
			fallthrough
		default:
			res.KexOffered = append(res.KexOffered, k)
		}
	}
	// RFC 4253 §7.1: the first client algorithm the server also supports.
	for _, k := range prefs {
		if slices.Contains(res.KexOffered, k) {
			res.Selected = k
			break
		}
	}
	if res.Selected == "" {
		return res, fmt.Errorf("no key exchange in common with the server (it offers %s)", printable(strings.Join(res.KexOffered, ",")))
	}
	res.PQ = isPQKex(res.Selected)

	start := time.Now()
	raw, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return res, err
	}
	defer raw.Close()
	raw.SetDeadline(time.Now().Add(timeout))
	nc := &recordingConn{Conn: raw}
	cfg := &ssh.ClientConfig{
		User: "pqkex-scan",
		// The callback runs only after the key exchange completed and the
		// server's signature over the exchange hash verified; stopping
		// there means scan never authenticates.
		HostKeyCallback: func(_ string, _ net.Addr, key ssh.PublicKey) error {
			res.ElapsedMS = float64(time.Since(start).Microseconds()) / 1000
			res.HostKeyType = key.Type()
			res.Fingerprint = ssh.FingerprintSHA256(key)
			return errScanDone
		},
	}
	cfg.KeyExchanges = []string{res.Selected}
	_, _, _, err = ssh.NewClientConn(nc, addr, cfg)
	if res.HostKeyType == "" {
		if err == nil {
			err = errors.New("handshake finished without a host key")
		}
		if why := closedEarly(nc.rec.got, err); why != nil {
			return res, fmt.Errorf("key exchange %s failed: %v", res.Selected, why)
		}
		// x/crypto's errors quote the server's names and its disconnect
		// message.
		return res, fmt.Errorf("key exchange %s failed: %s", res.Selected, printable(err.Error()))
	}
	return res, nil
}

// recordingConn is a connection whose reads a recorder keeps.
type recordingConn struct {
	net.Conn
	rec recorder
}

func (c *recordingConn) Read(p []byte) (int, error) {
	c.rec.r = c.Conn
	return c.rec.Read(p)
}

// penaltyLine is what OpenSSH's sshd (9.8 and later) sends, then
// closes, to a connection it refuses: a source under PerSourcePenalties
// or one over MaxStartups.
const penaltyLine = "Not allowed at this time"

// errRefusedByOpenSSH is the error for a connection refused with
// penaltyLine.
var errRefusedByOpenSSH = errors.New("the server refused the connection: \"" + penaltyLine + "\" is what OpenSSH's sshd sends " +
	"to a source it is penalising (PerSourcePenalties, on by default since OpenSSH 9.8: each connection that does not " +
	"authenticate, such as a pqkex check or scan run, adds 1 s, and from 15 s on the source is refused until the penalty has " +
	"passed, at most 10 minutes) or when it has too many unauthenticated connections (MaxStartups). Retry in a minute or two; " +
	"the server's log says which (\"drop connection\")")

// closedEarly explains a connection the server ended before the key
// exchange completed, from got, what it sent: refused with
// penaltyLine, or closed after its identification line. nil when it is
// neither (the caller's error stands).
func closedEarly(got []byte, err error) error {
	text := string(got)
	if strings.Contains(text, penaltyLine+"\r\n") && !strings.Contains(text, "SSH-") {
		return errRefusedByOpenSSH
	}
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return nil
	case !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) && !strings.HasSuffix(err.Error(), "EOF"):
		return nil
	}
	version := ""
	for _, l := range strings.SplitAfter(text, "\n") {
		if strings.HasPrefix(l, "SSH-") && strings.HasSuffix(l, "\n") {
			version = l
			break
		}
	}
	if version == "" {
		return nil
	}
	return fmt.Errorf("the server closed the connection after its identification line (%s), before the key exchange "+
		"completed (%d bytes received in all): it ended the connection itself, as a server does that limits "+
		"connections from one source (dropbear's per-address limit of unauthenticated connections, OpenSSH's "+
		"MaxStartups) or that does not take the key exchange offered; retry later, or see the server's log",
		printable(strings.TrimSpace(version)), len(got))
}

// maxScanPacket bounds the first packet: RFC 4253 §6.1 requires support
// for 35000-byte packets; a KEXINIT is far smaller.
const maxScanPacket = 256 << 10

// readServerKexInit sends a version line, reads the server's version line
// (skipping any banner lines before it, RFC 4253 §4.2) and its first binary
// packet, which must be SSH_MSG_KEXINIT.
func readServerKexInit(addr string, timeout time.Duration) (string, *sshwire.KexInit, error) {
	nc, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return "", nil, err
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(timeout))
	if _, err := io.WriteString(nc, "SSH-2.0-pqkex_scan\r\n"); err != nil {
		return "", nil, err
	}
	rec := &recorder{r: nc}
	version, ki, err := readKexInit(bufio.NewReader(rec))
	switch {
	case err != nil && version == "":
		err = notSSH(rec.got, timeout, err)
	case err != nil && ki == nil:
		if why := closedEarly(rec.got, err); why != nil {
			err = why
		}
	}
	return version, ki, err
}

// recorder keeps the first bytes read through it (up to maxRecorded;
// reading a version line stops long before), to say what a server that
// is not an SSH server sent.
type recorder struct {
	r   io.Reader
	got []byte
}

const maxRecorded = 64 << 10

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if keep := min(n, maxRecorded-len(r.got)); keep > 0 {
		r.got = append(r.got, p[:keep]...)
	}
	return n, err
}

// shownBudget bounds, in bytes, how much of a non-SSH server's answer an
// error quotes.
const shownBudget = 96

// notSSH turns a failure to read the server's identification line into
// an error that says the peer is not an SSH server and what it sent
// (sshwire.Quote: Go escapes, so control bytes and invalid UTF-8 cannot
// reach the terminal, and cut to shownBudget). Other errors with nothing
// received are returned as they are.
func notSSH(got []byte, timeout time.Duration, err error) error {
	var ne net.Error
	timedOut := errors.As(err, &ne) && ne.Timeout()
	switch {
	case closedEarly(got, err) == errRefusedByOpenSSH:
		return errRefusedByOpenSSH
	case len(got) > 0:
		return fmt.Errorf("not an SSH server (no SSH identification line, RFC 4253 section 4.2): it sent %s", sshwire.Quote(string(got), shownBudget))
	case timedOut:
		return fmt.Errorf("not an SSH server: it sent nothing within %v", timeout)
	case errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET):
		return errors.New("no SSH identification line: the server closed the connection without sending anything " +
			"(not an SSH server, or one refusing connections, as OpenSSH does over its MaxStartups)")
	}
	return err
}

// readKexInit reads the server's identification line and its first
// packet, which must be SSH_MSG_KEXINIT.
func readKexInit(br *bufio.Reader) (string, *sshwire.KexInit, error) {
	version, err := sshwire.ReadVersion(br)
	if err != nil {
		return "", nil, fmt.Errorf("reading the server's version line: %w", err)
	}
	if !strings.HasPrefix(version, "SSH-2.0-") && !strings.HasPrefix(version, "SSH-1.99-") {
		return version, nil, fmt.Errorf("server speaks %s, not SSH 2.0", sshwire.Quote(version, peerTextBudget))
	}
	payload, err := sshwire.ReadPlainPacket(br, maxScanPacket)
	if err != nil {
		return version, nil, fmt.Errorf("reading the server's KEXINIT: %w", err)
	}
	ki, err := sshwire.ParseKexInit(payload)
	if err != nil {
		return version, nil, fmt.Errorf("server's KEXINIT: %w", err)
	}
	return version, ki, nil
}
