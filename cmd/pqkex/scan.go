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
	"time"

	"github.com/pqkex/pqkex/internal/sshwire"
	"github.com/pqkex/pqkex/sshkex"
	"golang.org/x/crypto/ssh"
)

// postQuantumKex are the key exchanges with a post-quantum component that
// scan recognises, whether or not pqkex implements them.
var postQuantumKex = []string{
	"mlkem768x25519-sha256",
	"sntrup761x25519-sha512",
	"sntrup761x25519-sha512@openssh.com",
	"mlkem768nistp256-sha256",
	"mlkem1024nistp384-sha384",
	"sntrup4591761x25519-sha512@tinyssh.org",
}

// scanResult is what scan prints (-json prints it as is).
type scanResult struct {
	Host          string   `json:"host"`
	ServerVersion string   `json:"server_version"`
	KexOffered    []string `json:"kex_offered"`
	PQOffered     []string `json:"pq_offered"`
	HostKeyAlgos  []string `json:"host_key_algorithms"`
	Selected      string   `json:"selected"`
	PQ            bool     `json:"post_quantum"`
	HostKeyType   string   `json:"host_key_type,omitempty"`
	Fingerprint   string   `json:"host_key_fingerprint,omitempty"`
	ElapsedMS     float64  `json:"elapsed_ms,omitempty"`
	Error         string   `json:"error,omitempty"`
}

// runScan implements "pqkex scan". Exit status: 0 when a post-quantum key
// exchange was negotiated, 3 when the server offers none, 1 on error.
func runScan(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kex := fs.String("kex", "", "comma-separated client key exchange preference (default: pqkex's PQ-first list)")
	timeout := fs.Duration("timeout", 10*time.Second, "timeout for each connection")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: pqkex scan [-kex LIST] [-timeout D] [-json] HOST[:PORT]")
		fmt.Fprintln(stderr, "Lists the server's key exchanges, completes one with pqkex's PQ-first client (never authenticating) and reports it.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	addr := fs.Arg(0)
	if _, _, err := net.SplitHostPort(addr); err != nil {
		addr = net.JoinHostPort(addr, "22")
	}
	if err := sshkex.Register(); err != nil {
		fmt.Fprintln(stderr, "pqkex scan:", err)
		return 1
	}
	prefs := sshkex.RecommendedKeyExchanges()
	if *kex != "" {
		prefs = splitList(*kex)
	}

	res, err := scan(addr, prefs, *timeout)
	if err != nil {
		res.Error = err.Error()
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(res)
	} else {
		printScan(stdout, res)
	}
	switch {
	case err != nil:
		if !*asJSON {
			fmt.Fprintln(stderr, "pqkex scan:", err)
		}
		return 1
	case len(res.PQOffered) == 0 || !res.PQ:
		if !*asJSON {
			fmt.Fprintf(stderr, "WARNING: connection to %s is not using a post-quantum key exchange algorithm.\n"+
				"This session may be vulnerable to \"store now, decrypt later\" attacks.\n"+
				"The server may need to be upgraded. See https://openssh.com/pq.html\n", addr)
		}
		return 3
	}
	return 0
}

func printScan(w io.Writer, r *scanResult) {
	fmt.Fprintf(w, "server      %s  %s\n", r.Host, r.ServerVersion)
	if len(r.KexOffered) == 0 {
		return
	}
	fmt.Fprintln(w, "key exchanges offered (PQ = post-quantum hybrid):")
	for _, k := range r.KexOffered {
		mark := "  "
		if slices.Contains(postQuantumKex, k) {
			mark = "PQ"
		}
		fmt.Fprintf(w, "  %s  %s\n", mark, k)
	}
	if r.Selected == "" {
		fmt.Fprintln(w, "selected    none: no key exchange in common")
		return
	}
	fmt.Fprintf(w, "selected    %s (first of our preferences the server offers)\n", r.Selected)
	if r.HostKeyType != "" {
		fmt.Fprintf(w, "negotiated  %s, host key %s %s, %.1f ms\n", r.Selected, r.HostKeyType, r.Fingerprint, r.ElapsedMS)
	}
}

var errScanDone = errors.New("scan: key exchange complete")

// scan reads the server's KEXINIT, then completes a key exchange with the
// client preference prefs and stops before authentication.
func scan(addr string, prefs []string, timeout time.Duration) (*scanResult, error) {
	res := &scanResult{Host: addr}
	version, ki, err := readServerKexInit(addr, timeout)
	if err != nil {
		return res, err
	}
	res.ServerVersion = version
	res.KexOffered = ki.KexAlgos
	res.HostKeyAlgos = ki.HostKeyAlgos
	for _, k := range ki.KexAlgos {
		if slices.Contains(postQuantumKex, k) {
			res.PQOffered = append(res.PQOffered, k)
		}
	}
	// RFC 4253 §7.1: the first client algorithm the server also supports.
	for _, k := range prefs {
		if slices.Contains(ki.KexAlgos, k) {
			res.Selected = k
			break
		}
	}
	if res.Selected == "" {
		return res, fmt.Errorf("no key exchange in common with the server (it offers %s)", strings.Join(ki.KexAlgos, ","))
	}
	res.PQ = slices.Contains(postQuantumKex, res.Selected)

	start := time.Now()
	nc, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return res, err
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(timeout))
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
		return res, fmt.Errorf("key exchange %s failed: %v", res.Selected, err)
	}
	return res, nil
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
	return readKexInit(bufio.NewReader(nc))
}

// readKexInit reads the server's identification line and its first
// packet, which must be SSH_MSG_KEXINIT.
func readKexInit(br *bufio.Reader) (string, *sshwire.KexInit, error) {
	version, err := sshwire.ReadVersion(br)
	if err != nil {
		return "", nil, fmt.Errorf("reading the server's version line: %w", err)
	}
	if !strings.HasPrefix(version, "SSH-2.0-") && !strings.HasPrefix(version, "SSH-1.99-") {
		return version, nil, fmt.Errorf("server speaks %q, not SSH 2.0", version)
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
