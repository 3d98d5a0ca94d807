package kat

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"strconv"
	"testing"
)

// The SSH vector files as typed structs, for the tests that look into
// them beside RunSSHFile.

// Calls returns the bytes of the calls whose purpose is in purposes, in
// order, one slice per call.
func Calls(calls []RandomCall, purposes ...string) [][]byte {
	var out [][]byte
	for _, c := range calls {
		for _, p := range purposes {
			if c.Purpose == p {
				out = append(out, c.Hex)
			}
		}
	}
	return out
}

// SSHTranscript is the fixed part of the exchange hash shared by every test
// of an SSH vector file.
type SSHTranscript struct {
	VC            string `json:"V_C"`
	VS            string `json:"V_S"`
	IC            Hex    `json:"I_C"`
	IS            Hex    `json:"I_S"`
	HostKeyPublic Hex    `json:"host_key_ed25519_public"`
}

// SSHTest is one complete key exchange generated with OpenSSH's own code.
// Field names follow the JSON keys; the ECDH fields are X25519 or P-256
// depending on the file.
type SSHTest struct {
	TcID              int          `json:"tcId"`
	ClientRandomCalls []RandomCall `json:"client_random_calls"`
	ClientKEMPrivate  Hex          `json:"client_kem_private_key"`
	ClientX25519Priv  Hex          `json:"client_x25519_private"`
	QC                Hex          `json:"Q_C"`
	QS                Hex          `json:"Q_S"`
	KEMSharedSecret   Hex          `json:"kem_shared_secret"`
	K                 Hex          `json:"K_ssh_string"`
	H                 Hex          `json:"exchange_hash_H"`
	SignatureBlob     Hex          `json:"host_key_signature_blob"`
}

// SSHEdgeTest is an invalid or edge-case input and OpenSSH's verdict.
type SSHEdgeTest struct {
	TcID             int    `json:"tcId"`
	Role             string `json:"role"` // "server" or "client": who processes the bad input
	Comment          string `json:"comment"`
	ClientKEMPrivate Hex    `json:"client_kem_private_key"`
	ClientX25519Priv Hex    `json:"client_x25519_private"`
	QC               Hex    `json:"Q_C"`
	QS               Hex    `json:"Q_S"`
	Result           string `json:"result"` // "accept" or "reject"
	KEMSharedSecret  Hex    `json:"kem_shared_secret"`
	K                Hex    `json:"K_ssh_string"`
	KMasked          Hex    `json:"K_ssh_string_if_bit255_masked"`
}

// SSHFile is one of the ssh/*_openssh.json vector files.
type SSHFile struct {
	Algorithm  string        `json:"algorithm"`
	Transcript SSHTranscript `json:"transcript"`
	Tests      []SSHTest     `json:"tests"`
	EdgeTests  []SSHEdgeTest `json:"invalid_and_edge_tests"`
}

func readSSH(t *testing.T, name string) *SSHFile {
	t.Helper()
	b, err := os.ReadFile("../../vectors/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	f := new(SSHFile)
	if err := json.Unmarshal(b, f); err != nil || len(f.Tests) == 0 {
		t.Fatalf("%s: %v", name, err)
	}
	return f
}

// String names a test for failure messages.
func (t *SSHTest) String() string { return "tcId " + strconv.Itoa(t.TcID) }

// parseStrings splits b into SSH strings; ok is false unless b is exactly
// a sequence of n strings.
func parseStrings(b []byte, n int) (out [][]byte, ok bool) {
	for range n {
		if len(b) < 4 {
			return nil, false
		}
		l := binary.BigEndian.Uint32(b)
		if uint64(len(b)-4) < uint64(l) {
			return nil, false
		}
		out = append(out, b[4:4+l])
		b = b[4+l:]
	}
	return out, len(b) == 0
}
