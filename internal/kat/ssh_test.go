package kat

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

// The SSH vector files on every way to run their method (public API,
// engine with each KEM backend), with the file-specific expectations:
// counts, the transcript's shape, and the coverage of the edge cases,
// each kind classified from the input (edgeKind, crypto/mlkem), not by
// pqkex.
var sshFiles = []struct {
	file, method string
	tests, edges int
	coverage     map[string]int
}{
	{"mlkem768x25519-sha256_openssh.json", "mlkem768x25519-sha256", 14, 18, map[string]int{
		"server rejects length": 2, "server rejects point": 7, "server rejects ek": 1,
		"client rejects length": 1, "client rejects point": 3, "bit255": 2, "accept": 2}},
	{"sntrup761x25519-sha512_openssh.json", "sntrup761x25519-sha512", 15, 17, map[string]int{
		"server rejects length": 2, "server rejects point": 7,
		"client rejects length": 1, "client rejects point": 3, "bit255": 2, "accept": 2}},
	{"mlkem768nistp256-sha256_openssh.json", "mlkem768nistp256-sha256", 18, 24, nil},
	{"mlkem768nistp256-sha256_putty.json", "mlkem768nistp256-sha256", 18, 27, nil},
	{"mlkem1024nistp384-sha384_putty.json", "mlkem1024nistp384-sha384", 18, 27, nil},
}

func TestSSHFiles(t *testing.T) {
	for _, f := range sshFiles {
		t.Run(f.file, func(t *testing.T) {
			v := readSSH(t, f.file)
			if v.Algorithm != f.method || len(v.Tests) != f.tests || len(v.EdgeTests) != f.edges {
				t.Fatalf("%s: %d exchanges and %d edge cases, want %s, %d and %d", v.Algorithm, len(v.Tests), len(v.EdgeTests), f.method, f.tests, f.edges)
			}
			tr := &v.Transcript
			if len(tr.IC) == 0 || tr.IC[0] != 20 || len(tr.IS) == 0 || tr.IS[0] != 20 || strings.ContainsAny(tr.VC+tr.VS, "\r\n") {
				t.Fatal("I_C and I_S must be whole KEXINIT payloads, V_C and V_S without CR LF")
			}
			exs := exchanges(f.method)
			knownAnswers(func() {
				if n := RunSSHFile(t, f.file, readFile(t, f.file), exs...); n != (f.tests+f.edges)*len(exs) {
					t.Errorf("ran %d cases on %d exchanges", n, len(exs))
				}
			})
			// The host key signature does not verify over a wrong H.
			for _, tc := range v.Tests {
				badH := bytes.Clone(tc.H)
				badH[0] ^= 1
				if sig := tc.SignatureBlob; len(sig) < 64 || ed25519.Verify(ed25519.PublicKey(tr.HostKeyPublic), badH, sig[len(sig)-64:]) {
					t.Fatalf("%v: bad signature blob, or it verifies over a wrong H", &tc)
				}
			}
			if f.coverage == nil {
				return
			}
			m := mustPublic(f.method).Method
			counts := map[string]int{}
			for _, tc := range v.EdgeTests {
				switch {
				case tc.Result == "reject":
					counts[tc.Role+" rejects "+edgeKind(m, tc.Role, tc.QC, tc.QS)]++
				case tc.KMasked != nil:
					counts["bit255"]++
				default:
					counts["accept"]++
				}
			}
			if !maps.Equal(counts, f.coverage) {
				t.Errorf("edge case coverage %v, want %v", counts, f.coverage)
			}
		})
	}
}

// TestRunnersFail shows that the runners can fail: one changed value in
// a file (a hex digit of the first occurrence of a field, or a verdict)
// must fail at least one vector (the run stops at the first that fails).
// The first occurrence is the first after the "tests" key.
func TestRunnersFail(t *testing.T) {
	ts768 := Targets(0, mustPublic("mlkem768x25519-sha256"))
	cases := map[string][]string{
		"mlkem768x25519-sha256_openssh.json":   {`"K_ssh_string": "`, `"exchange_hash_H": "`, `"A": "`, `"host_key_signature_blob": "`, `"kex_ecdh_reply_payload": "`, `"kem_shared_secret": "`, `"x25519_shared_secret": "`, `"client_kem_private_key": "`, `"hex": "`, `"x25519_shared_secret_if_bit255_masked": "`},
		"sntrup761x25519-sha512_openssh.json":  {`"K_ssh_string": "`, `"Q_S": "`, `"client_kem_private_key": "`, `"client_x25519_private": "`, `"result": "`},
		"mlkem768nistp256-sha256_openssh.json": {`"K_ssh_string": "`, `"p256_shared_secret": "`, `"server_p256_private": "`, `"result": "`},
		"mlkem1024nistp384-sha384_putty.json":  {`"K_ssh_string": "`, `"kex_ecdh_init_payload": "`, `"p384_shared_secret": "`},
		"mlkem768_acvp_keygen.json":            {`"ek":"`, `"dk":"`},
		"mlkem768_acvp_encapdecap.json":        {`"c":"`, `"k":"`},
		"wycheproof_mlkem_768_test.json":       {`"K": "`, `"result": "`},
	}
	for file, fields := range cases {
		data := readFile(t, file)
		run := func(t TB, d []byte) { // on circl or sntrup761: both check the expanded key
			RunSSHFile(t, file, d, Backends(readMethod(d), *mustPublic(readMethod(d)).Method)[0])
		}
		switch {
		case strings.HasPrefix(file, "mlkem768_acvp_keygen"):
			run = func(t TB, d []byte) { RunACVP(t, file, d, ts768...) }
		case strings.HasPrefix(file, "mlkem768_acvp_encapdecap"):
			run = func(t TB, d []byte) { RunACVP(t, file, d, ts768...) }
		case strings.HasPrefix(file, "wycheproof"):
			run = func(t TB, d []byte) { RunWycheproof(t, file, d, ts768...) }
		}
		knownAnswers(func() {
			if r := Record(func(t TB) { run(t, data) }); r.Failed != 0 || r.Err != nil || r.Passed == 0 {
				t.Fatalf("%s intact: %d passed, %d failed, %v", file, r.Passed, r.Failed, r.Err)
			}
			for _, field := range fields {
				start := bytes.Index(data, []byte(`"tests"`)) // after any description of the fields
				i := bytes.Index(data[max(start, 0):], []byte(field)) + max(start, 0)
				if start < 0 || i < start {
					t.Fatalf("%s: no %s", file, field)
				}
				bad := bytes.Clone(data)
				j := i + len(field)
				switch {
				case bytes.HasPrefix(bad[j:], []byte("reject")):
					copy(bad[j:], "accept")
				case bytes.HasPrefix(bad[j:], []byte("accept")):
					copy(bad[j:], "reject")
				case bytes.HasPrefix(bad[j:], []byte("valid")):
					bad = append(append(bad[:j:j], "in"...), data[j:]...)
				case strings.IndexByte("0123456789abcdefABCDEF", bad[j]) >= 0:
					bad[j] ^= 1 // another hex digit
				default:
					t.Fatalf("%s: %s is followed by %q", file, field, bad[j:j+8])
				}
				if r := recordFirst(func(t TB) { run(t, bad) }); r.Failed == 0 {
					t.Errorf("%s: changing the first %s went unnoticed (%d passed)", file, field, r.Passed)
				}
			}
		})
	}
}

// readMethod is an SSH vector file's algorithm.
func readMethod(data []byte) string {
	var f struct{ Algorithm string }
	json.Unmarshal(data, &f)
	return f.Algorithm
}
