package hybrid

import "crypto"

// The four methods, each described once: its KEM, curve and hash. The
// packages mlkem768x25519, sntrup761x25519, mlkem768nistp256 and
// mlkem1024nistp384 are thin, documented wrappers around these values;
// the known-answer runners (internal/kat) use them for the explicit-key
// constructors the public API does not have.
var (
	MLKEM768X25519 = Method{
		Prefix:   "mlkem768x25519",
		Hash:     crypto.SHA256,
		Params:   MLKEM768,
		Curve:    X25519(),
		Expanded: LoadExpanded768,
	}

	SNTRUP761X25519 = Method{
		Prefix: "sntrup761x25519",
		Hash:   crypto.SHA512,
		KEM:    SNTRUP761(),
		Curve:  X25519(),
	}

	MLKEM768NISTP256 = Method{
		Prefix: "mlkem768nistp256",
		Hash:   crypto.SHA256,
		Params: MLKEM768,
		Curve:  P256(),
		// Every algorithm is approved: in FIPS 140-3 mode only the module's
		// services run, whatever reader the caller passes.
		Approved: true,
	}

	MLKEM1024NISTP384 = Method{
		Prefix:   "mlkem1024nistp384",
		Hash:     crypto.SHA384,
		Params:   MLKEM1024,
		Curve:    P384(),
		Approved: true, // as MLKEM768NISTP256
	}
)
