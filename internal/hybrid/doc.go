// Package hybrid is what the four hybrid SSH methods share: the exchange
// itself (RFC 10042 section 2.1 and RFC 9941: C_INIT = ek || C_PK,
// S_REPLY = ct || S_PK, KEM first), the checks on peer input, the
// reading of randomness and K = string(HASH(K_PQ || K_CL)) (RFC 10042
// sections 2.4 and 2.5), over interchangeable post-quantum halves (circl's and
// crypto/mlkem's ML-KEM, this module's sntrup761) and classical curves
// (X25519 with its mandatory all-zero check, P-256, P-384). The packages
// mlkem768x25519, sntrup761x25519, mlkem768nistp256 and mlkem1024nistp384
// are thin, documented wrappers around a Method (methods.go).
//
// The files: method.go (a Method: client and server), methods.go (the
// four), kem*.go (the KEM halves), curve.go (the classical halves),
// combiner.go (K), rand.go (the caller's randomness), upperstate.go (a
// workaround for circl's AVX2 code).
package hybrid
