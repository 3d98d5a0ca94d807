package conformance

import (
	"context"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pqkex/pqkex/internal/testkit/sshtest"
	"github.com/pqkex/pqkex/internal/testkit/tier"
)

// The checks must catch a broken pqkex: each mutant below is a copy of
// this module with one deliberate bug in the hybrid engine, built into
// pqkex serve (checked as a server) and an x/crypto client with sshkex
// (checked as a client); the cases named must stop conforming, and the
// honest exchange must still complete where the bug does not touch it.
// The builds take up to a minute, so they are a long run (PQKEX_LONG=1,
// tier.Long), which .ci/run runs in a step of its own.

type engineMutant struct {
	name  string
	file  string // in internal/hybrid
	old   string // regular expression, must match
	new   string
	extra string // Go source added to package hybrid
	// servers and clients: cases that must not conform, by method.
	server, client map[string][]string
	// detail, if set, must be in the server's honest case's detail.
	detail string
}

const reduceModQ = `package hybrid

// mutantReduce reduces every 12-bit coefficient of an ML-KEM
// encapsulation key mod q, so that no key fails the modulus check.
func mutantReduce(ek []byte) []byte {
	out := append([]byte(nil), ek...)
	for i := 0; i+3 <= len(out)-32; i += 3 {
		a := (uint16(out[i]) | uint16(out[i+1]&0x0f)<<8) % 3329
		b := (uint16(out[i+1]>>4) | uint16(out[i+2])<<4) % 3329
		out[i], out[i+1], out[i+2] = byte(a), byte(a>>8)|byte(b<<4), byte(b>>4)
	}
	return out
}
`

const asMpint = `package hybrid

import "github.com/pqkex/pqkex/kexhash"

func mutantMpint(d []byte) []byte { return kexhash.Mpint(d) }
`

const trimZeros = `package hybrid

// mutantTrim drops b's leading zero bytes, as an mpint does.
func mutantTrim(b []byte) []byte {
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	return b
}
`

var engineMutants = []engineMutant{
	{
		name: "the FIPS 203 modulus check removed (keys reduced mod q instead)",
		file: "kem_circl.go", old: `k\.s\.UnmarshalBinaryPublicKey\(ek\)`, new: "k.s.UnmarshalBinaryPublicKey(mutantReduce(ek))", extra: reduceModQ,
		server: map[string][]string{
			"mlkem768x25519-sha256":   {"ek-modulus-first", "ek-modulus-odd", "ek-modulus-last", "ek-modulus-max"},
			"mlkem768nistp256-sha256": {"ek-modulus-first", "ek-modulus-odd", "ek-modulus-last", "ek-modulus-max"},
		},
	},
	{
		name: "K hashed as an mpint instead of a string",
		file: "combiner.go", old: `k := binary\.BigEndian\.AppendUint32\(make\(\[\]byte, 0, 4\+len\(d\)\), uint32\(len\(d\)\)\)\n\tk = append\(k, d\.\.\.\)`,
		new: "k := mutantMpint(d)\n\t_ = binary.BigEndian // its only use is gone", extra: asMpint,
		server: map[string][]string{"mlkem768x25519-sha256": {"honest"}, "mlkem768nistp256-sha256": {"honest"}},
		client: map[string][]string{"mlkem768x25519-sha256": {"honest", "sig-k-mpint"}},
		detail: "it verifies over H computed with K hashed as an mpint instead of a string",
	},
	{
		name: "K_PQ and K_CL hashed in the wrong order",
		file: "combiner.go", old: `n := copy\(buf\[:\], kPQ\)\n\tif n != len\(kPQ\) \|\| n\+len\(kCL\) > len\(buf\) \{`,
		new:    "n := copy(buf[:], kCL)\n\tkPQ, kCL = kCL, kPQ\n\tif n != len(kPQ) || n+len(kCL) > len(buf) {",
		server: map[string][]string{"mlkem768x25519-sha256": {"honest"}},
		detail: "it verifies over H computed with K = HASH(K_CL || K_PQ), the halves in the wrong order",
	},
	{
		// Erlang/OTP 28.4-29.0's bug, in both parts at once (one build).
		name: "K_PQ's and K_CL's leading zero bytes dropped",
		file: "combiner.go", old: `n := copy\(buf\[:\], kPQ\)\n\tif n != len\(kPQ\) \|\| n\+len\(kCL\) > len\(buf\) \{`,
		new:    "kPQ, kCL = mutantTrim(kPQ), mutantTrim(kCL)\n\tn := copy(buf[:], kPQ)\n\tif n != len(kPQ) || n+len(kCL) > len(buf) {",
		extra:  trimZeros,
		client: map[string][]string{"mlkem768x25519-sha256": {"k-pq-00", "k-pq-0000", "k-cl-00"}},
	},
	{
		name: "the X25519 all-zero check removed",
		file: "curve.go", old: `return subtle\.ConstantTimeCompare\(out\[:\], zero\[:\]\) == 0`, new: "return subtle.ConstantTimeCompare(out[:], zero[:]) >= 0",
		server: map[string][]string{"mlkem768x25519-sha256": {"x25519-0", "x25519-1", "x25519-order8a", "x25519-p", "x25519-0-bit255"}},
		client: map[string][]string{"mlkem768x25519-sha256": {"x25519-0", "x25519-order8b", "x25519-p+1", "x25519-p-1-bit255"}},
	},
}

// clientProbe connects an x/crypto client with sshkex's methods to
// os.Args[1] os.Args[2] times, offering the key exchanges os.Args[3].
const clientProbe = `package main

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pqkex/pqkex/sshkex"
	"golang.org/x/crypto/ssh"
)

func main() {
	if err := sshkex.Register(); err != nil {
		panic(err)
	}
	n, _ := strconv.Atoi(os.Args[2])
	cfg := &ssh.ClientConfig{User: "x", HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second}
	cfg.KeyExchanges = strings.Split(os.Args[3], ",")
	for range n {
		if c, err := ssh.Dial("tcp", os.Args[1], cfg); err == nil {
			c.Wait() // until check ends the case
			c.Close()
		}
	}
}
`

func TestEngineMutantsCaught(t *testing.T) {
	tier.SkipUnlessLong(t, "builds pqkex from mutated copies of this module, under a minute")
	root, err := filepath.Abs("../../../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, mu := range engineMutants {
		t.Run(mu.name, func(t *testing.T) {
			dir := copyModule(t, root)
			path := filepath.Join(dir, "internal", "hybrid", mu.file)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			re := regexp.MustCompile(mu.old)
			if !re.Match(src) {
				t.Fatalf("%s has no match for %q: update the mutant", mu.file, mu.old)
			}
			write(t, path, re.ReplaceAllString(string(src), mu.new))
			if mu.extra != "" {
				write(t, filepath.Join(dir, "internal", "hybrid", "zz_mutant.go"), mu.extra)
			}
			if len(mu.server) > 0 {
				pqkex := build(t, dir, "./cmd/pqkex")
				addr := startServe(t, pqkex)
				for method, cases := range mu.server {
					rep, err := CheckServer(context.Background(), ServerOptions{Addr: addr, Methods: []string{method}, Timeout: 5 * time.Second})
					if err != nil {
						t.Fatal(err)
					}
					requireCaught(t, "pqkex serve", rep.Results, method, cases)
					if mu.detail != "" && !strings.Contains(rep.Results[0].Detail, mu.detail) {
						t.Errorf("the honest case's detail %q does not say %q", rep.Results[0].Detail, mu.detail)
					}
				}
			}
			for method, cases := range mu.client {
				write(t, filepath.Join(dir, "cmd", "probe", "main.go"), clientProbe)
				probe := build(t, dir, "./cmd/probe")
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				n := len(clientCases(lookupMethod(method)))
				cmd := exec.Command(probe, ln.Addr().String(), strconv.Itoa(n), method)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				rep, err := CheckClients(ctx, ClientOptions{Listener: ln, Methods: []string{method}, Timeout: 5 * time.Second})
				cancel()
				cmd.Wait()
				if err != nil {
					t.Fatal(err)
				}
				requireCaught(t, "the x/crypto client", rep.Results, method, cases)
			}
		})
	}
}

// requireCaught checks that exactly the cases named do not conform among
// method's results, and that every case ran.
func requireCaught(t *testing.T, who string, rs []Result, method string, cases []string) {
	t.Helper()
	caught := map[string]bool{}
	for _, r := range rs {
		if r.Method != method {
			continue
		}
		// packet-tampered and rekey need the honest exchange: where
		// honest must fail, they cannot run.
		if r.Verdict == NotRun && !((r.Case == "packet-tampered" || r.Case == "rekey") && slices.Contains(cases, "honest")) {
			t.Errorf("%s %s %s did not run: %s", who, method, r.Case, r.Detail)
		}
		if !r.Conforms && r.Verdict != NotApplicable {
			caught[r.Case] = true
			t.Logf("caught: %s %s %s: %s: %s", who, method, r.Case, r.Observed(), r.Detail)
		}
	}
	for _, c := range cases {
		if !caught[c] {
			t.Errorf("%s %s: case %s conforms with the mutant", who, method, c)
		}
	}
}

func copyModule(t *testing.T, root string) string {
	dst := t.TempDir()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if d.Name() == ".git" || rel == "examples" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(filepath.Join(dst, rel))
		if err != nil {
			return err
		}
		defer out.Close()
		_, err = io.Copy(out, in)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func build(t *testing.T, dir, pkg string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

// startServe runs pqkex serve and returns its address.
func startServe(t *testing.T, bin string) string { return sshtest.StartServe(t, bin, nil) }
