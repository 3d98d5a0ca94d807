package main

import "strings"

// method is what the template needs of one method package. The text
// fields are phrases the template puts into sentences; each byte count
// is checked against its constant expression at compile time in the
// generated file.
type method struct {
	Pkg    string // package name and directory
	Name   string // SSH name
	Ref    string // the specification of Name
	Alias  string // OpenSSH's older name for the same method, if any
	Engine string // the method's hybrid.Method

	Hash       string // crypto.Hash constant
	HashName   string
	HashImport string // the package of HashSize
	HashSize   string // the digest size, a constant expression
	HashBytes  int

	KEM       string
	KEMImport string // the package of EK and CT
	EKName    string // what the KEM's encapsulation key is called
	EK, CT    string // the sizes of its encapsulation key and ciphertext
	EKBytes   int
	CTBytes   int
	ChecksEK  bool // the encapsulation key is checked (FIPS 203 section 7.2)

	Curve      string
	Point      string // what a public key of Curve is on the wire
	PointExpr  string // its size, a constant expression
	PointNote  string // its layout
	PointBytes int
	PointError string // how a peer's public key of Curve is refused

	// Approved says that every algorithm of the method is approved in
	// FIPS 140-3: in that mode NewClient and Respond ignore the reader.
	Approved bool
	// What NewClient and Respond read from a caller's reader, in order,
	// what happens with the default source instead, and the errors.
	ClientReads, ClientOwn, ClientErrors  string
	ServerReads, ServerOwn, RespondErrors string

	// PooledKeys adds NewClientWithKey (a key from a sntrup761.KeyPool).
	PooledKeys bool
}

func (m *method) ClientInitBytes() int  { return m.EKBytes + m.PointBytes }
func (m *method) ServerReplyBytes() int { return m.CTBytes + m.PointBytes }
func (m *method) SharedBytes() int      { return 4 + m.HashBytes }

const (
	x25519Error = "gives an all-zero shared secret (a point of small order, RFC 7748 section 6.1)"
	nistError   = "is not a valid uncompressed point on the curve (SEC1 section 3.2.2.1)"
)

var methods = []method{
	{
		Pkg: "mlkem768x25519", Name: "mlkem768x25519-sha256", Ref: "RFC 10042", Engine: "MLKEM768X25519",
		Hash: "SHA256", HashName: "SHA-256", HashImport: "crypto/sha256", HashSize: "sha256.Size", HashBytes: 32,
		KEM: "ML-KEM-768", KEMImport: "crypto/mlkem", EKName: "encapsulation key",
		EK: "mlkem.EncapsulationKeySize768", CT: "mlkem.CiphertextSize768", EKBytes: 1184, CTBytes: 1088, ChecksEK: true,
		Curve: "X25519", Point: "X25519 public key", PointExpr: "32", PointNote: "a u-coordinate, RFC 7748", PointBytes: 32, PointError: x25519Error,
		ClientReads:   "64 bytes, the ML-KEM seed d || z (FIPS 203 ML-KEM.KeyGen_internal), and then 32 bytes, the X25519 private key",
		ClientOwn:     "the implementations draw the same secrets from crypto/rand (in FIPS 140-3 mode the ML-KEM key is [crypto/mlkem.GenerateKey768]'s)",
		ClientErrors:  "reading randomness fails",
		ServerReads:   "32 bytes, the ML-KEM encapsulation randomness m (ML-KEM.Encaps_internal), and then 32 bytes, the server's X25519 private key",
		ServerOwn:     "the implementations draw the same secrets from crypto/rand (in FIPS 140-3 mode the encapsulation is the Go Cryptographic Module's own Encapsulate)",
		RespondErrors: "if reading randomness fails, or under GODEBUG=fips140=only if rand is a reader other than crypto/rand's: encapsulation with a given m goes through crypto/mlkem/mlkemtest, which that mode refuses",
	},
	{
		Pkg: "sntrup761x25519", Name: "sntrup761x25519-sha512", Ref: "RFC 9941", Alias: "sntrup761x25519-sha512@openssh.com", Engine: "SNTRUP761X25519",
		Hash: "SHA512", HashName: "SHA-512", HashImport: "crypto/sha512", HashSize: "sha512.Size", HashBytes: 64,
		KEM: "sntrup761", KEMImport: "github.com/pqkex/pqkex/sntrup761", EKName: "public key",
		EK: "sntrup761.EncapsulationKeySize", CT: "sntrup761.CiphertextSize", EKBytes: 1158, CTBytes: 1039,
		Curve: "X25519", Point: "X25519 public key", PointExpr: "32", PointNote: "a u-coordinate, RFC 7748", PointBytes: 32, PointError: x25519Error,
		ClientReads:   "3044 bytes for sntrup761's g (again while g is not invertible), 3044 bytes for f and 191 bytes for rho, and then 32 bytes, the X25519 private key, each in one Read",
		ClientOwn:     "sntrup761 and the X25519 key read the same bytes from crypto/rand's Reader themselves",
		ClientErrors:  "reading randomness fails",
		ServerReads:   "3044 bytes, the sntrup761 encapsulation's r, and then 32 bytes, the server's X25519 private key, each in one Read",
		ServerOwn:     "sntrup761 and the X25519 key read the same bytes from crypto/rand's Reader themselves",
		RespondErrors: "or if reading randomness fails",
		PooledKeys:    true,
	},
	{
		Pkg: "mlkem768nistp256", Name: "mlkem768nistp256-sha256", Ref: "RFC 10042", Engine: "MLKEM768NISTP256",
		Hash: "SHA256", HashName: "SHA-256", HashImport: "crypto/sha256", HashSize: "sha256.Size", HashBytes: 32,
		KEM: "ML-KEM-768", KEMImport: "crypto/mlkem", EKName: "encapsulation key",
		EK: "mlkem.EncapsulationKeySize768", CT: "mlkem.CiphertextSize768", EKBytes: 1184, CTBytes: 1088, ChecksEK: true,
		Curve: "P-256", Point: "uncompressed P-256 point", PointExpr: "1 + 2*32", PointNote: "04 || X || Y", PointBytes: 65, PointError: nistError,
		Approved:      true,
		ClientReads:   "64 bytes, the ML-KEM seed d || z (FIPS 203 ML-KEM.KeyGen_internal), and then 32-byte big-endian P-256 private key candidates until one lies in [1, n-1]",
		ClientOwn:     "circl's ML-KEM draws its seed from crypto/rand and [crypto/ecdh] generates the P-256 key",
		ClientErrors:  "reading randomness fails (or yields 64 invalid candidates in a row), or if the module's key generation fails",
		ServerReads:   "32 bytes, the ML-KEM encapsulation randomness m (ML-KEM.Encaps_internal), and then the server's P-256 private key candidates the same way",
		ServerOwn:     "circl's ML-KEM draws m from crypto/rand and [crypto/ecdh] generates the P-256 key",
		RespondErrors: "or if reading randomness fails",
	},
	{
		Pkg: "mlkem1024nistp384", Name: "mlkem1024nistp384-sha384", Ref: "RFC 10042", Engine: "MLKEM1024NISTP384",
		Hash: "SHA384", HashName: "SHA-384", HashImport: "crypto/sha512", HashSize: "sha512.Size384", HashBytes: 48,
		KEM: "ML-KEM-1024", KEMImport: "crypto/mlkem", EKName: "encapsulation key",
		EK: "mlkem.EncapsulationKeySize1024", CT: "mlkem.CiphertextSize1024", EKBytes: 1568, CTBytes: 1568, ChecksEK: true,
		Curve: "P-384", Point: "uncompressed P-384 point", PointExpr: "1 + 2*48", PointNote: "04 || X || Y", PointBytes: 97, PointError: nistError,
		Approved:      true,
		ClientReads:   "64 bytes, the ML-KEM seed d || z (FIPS 203 ML-KEM.KeyGen_internal), and then 48-byte big-endian P-384 private key candidates until one lies in [1, n-1]",
		ClientOwn:     "circl's ML-KEM draws its seed from crypto/rand and [crypto/ecdh] generates the P-384 key",
		ClientErrors:  "reading randomness fails (or yields 64 invalid candidates in a row), or if the module's key generation fails",
		ServerReads:   "32 bytes, the ML-KEM encapsulation randomness m (ML-KEM.Encaps_internal), and then the server's P-384 private key candidates the same way",
		ServerOwn:     "circl's ML-KEM draws m from crypto/rand and [crypto/ecdh] generates the P-384 key",
		RespondErrors: "or if reading randomness fails",
	},
}

// KEMIsStd says that KEMImport is a standard library package (imported
// in the first group).
func (m *method) KEMIsStd() bool { return !strings.Contains(m.KEMImport, ".") }
