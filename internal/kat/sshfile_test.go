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
	KS            Hex    `json:"K_S"`
	HostKeySeed   Hex    `json:"host_key_ed25519_seed"`
	HostKeyPublic Hex    `json:"host_key_ed25519_public"`
}

// SSHTest is one complete key exchange generated with OpenSSH's own code.
// Field names follow the JSON keys; the ECDH fields are X25519 or P-256
// depending on the file.
type SSHTest struct {
	TcID               int            `json:"tcId"`
	ClientStream       string         `json:"client_stream"`
	ServerStream       string         `json:"server_stream"`
	ClientStreamPrefix int            `json:"client_stream_prefix_len"`
	ClientRandomCalls  []RandomCall   `json:"client_random_calls"`
	ServerRandomCalls  []RandomCall   `json:"server_random_calls"`
	ClientKEMPrivate   Hex            `json:"client_kem_private_key"`
	ClientKEMPublic    Hex            `json:"client_kem_public_key"`
	ClientX25519Priv   Hex            `json:"client_x25519_private"`
	ClientX25519Pub    Hex            `json:"client_x25519_public"`
	ClientP256Priv     Hex            `json:"client_p256_private"`
	ClientP256Pub      Hex            `json:"client_p256_public"`
	QC                 Hex            `json:"Q_C"`
	InitPayload        Hex            `json:"kex_ecdh_init_payload"`
	ServerX25519Priv   Hex            `json:"server_x25519_private"`
	ServerX25519Pub    Hex            `json:"server_x25519_public"`
	ServerP256Priv     Hex            `json:"server_p256_private"`
	ServerP256Pub      Hex            `json:"server_p256_public"`
	KEMCiphertext      Hex            `json:"kem_ciphertext"`
	QS                 Hex            `json:"Q_S"`
	KEMSharedSecret    Hex            `json:"kem_shared_secret"`
	X25519Shared       Hex            `json:"x25519_shared_secret"`
	P256Shared         Hex            `json:"p256_shared_secret"`
	HashInput          Hex            `json:"shared_secret_hash_input"`
	SharedSecretHash   Hex            `json:"shared_secret_hash"`
	K                  Hex            `json:"K_ssh_string"`
	H                  Hex            `json:"exchange_hash_H"`
	DerivedKeys        map[string]Hex `json:"derived_keys_128_bytes"`
	SignatureBlob      Hex            `json:"host_key_signature_blob"`
	ReplyPayload       Hex            `json:"kex_ecdh_reply_payload"`
}

// SSHEdgeTest is an invalid or edge-case input and OpenSSH's verdict.
type SSHEdgeTest struct {
	TcID               int          `json:"tcId"`
	Role               string       `json:"role"` // "server" or "client": who processes the bad input
	Comment            string       `json:"comment"`
	ClientStream       string       `json:"client_stream"`
	ServerStream       string       `json:"server_stream"`
	ClientKEMPrivate   Hex          `json:"client_kem_private_key"`
	ClientX25519Priv   Hex          `json:"client_x25519_private"`
	ClientP256Priv     Hex          `json:"client_p256_private"`
	ServerX25519Priv   Hex          `json:"server_x25519_private"`
	ServerP256Priv     Hex          `json:"server_p256_private"`
	QC                 Hex          `json:"Q_C"`
	QS                 Hex          `json:"Q_S"`
	Result             string       `json:"result"` // "accept" or "reject"
	OpenSSHError       int          `json:"openssh_error"`
	KEMSharedSecret    Hex          `json:"kem_shared_secret"`
	X25519Shared       Hex          `json:"x25519_shared_secret"`
	K                  Hex          `json:"K_ssh_string"`
	X25519SharedMasked Hex          `json:"x25519_shared_secret_if_bit255_masked"`
	KMasked            Hex          `json:"K_ssh_string_if_bit255_masked"`
	KIfAccepted        Hex          `json:"K_ssh_string_if_accepted"`
	ServerRandomCalls  []RandomCall `json:"server_random_calls"`
}

// SSHFile is one of the ssh/*_openssh.json vector files.
type SSHFile struct {
	Algorithm   string        `json:"algorithm"`
	GeneratedBy string        `json:"generated_by"`
	Transcript  SSHTranscript `json:"transcript"`
	Tests       []SSHTest     `json:"tests"`
	EdgeTests   []SSHEdgeTest `json:"invalid_and_edge_tests"`
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
