package sshkex

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pqkex/pqkex/internal/sshwire"
	"golang.org/x/crypto/ssh"
)

// The registration self-test asks the running binary's x/crypto/ssh the
// question no version number answers: does it run pqkex's key exchanges as
// pqkex means them, and does it still verify the server's host key
// signature after one? It runs x/crypto's own exported client and server
// (ssh.NewClientConn, ssh.NewServerConn) against each other over an
// in-memory connection, with each method about to be registered, and
// checks what it sees on the wire:
//
//  1. honest handshakes, one per method: both complete; x/crypto called
//     pqkex's Client and Server and both found the same K; the exchange hash
//     H that pqkex computes (kexhash) from the plaintext transcript recorded
//     on the pipe (identification lines, both KEXINITs, KEX_ECDH_INIT and
//     _REPLY) equals the H each side's key exchange returned and each side's
//     SessionID(); and every packet each side sent after SSH_MSG_NEWKEYS
//     decrypts and authenticates with the keys of its direction derived
//     from that K and H (RFC 4253 §7.2: the client's 'A', 'C', 'E', the
//     server's 'B', 'D', 'F', session identifier H) and its sequence
//     number (from 0 after a strict key exchange).
//  2. a server that presents one host key and signs H with another, and a
//     server whose signature is corrupted: x/crypto's client must reject
//     both, after pqkex's Client returned its result. These share every line
//     of adapter code between methods (hybridKEX.Client never looks at the
//     signature; x/crypto verifies it over kexResult.H), so they run with
//     one method, mlkem768nistp256-sha256, which every mode registers.
//
// The methods run under private names ("pqkex-self-test-N-NAME@pqkex.invalid")
// in a copy of x/crypto's registry that replaces the real one for the
// duration of the test and is always restored: no default list, no Config
// of the program and no peer offers those names. Host keys are ECDSA P-256
// keys generated for the test and dropped after it; key exchanges use
// x/crypto's default randomness (crypto/rand).
//
// Register must never crash. pqkex's code that x/crypto runs on its own
// goroutines during the self-test (Client and Server, the observe hook,
// and x/crypto code they call, such as the packetConn) runs under
// selfTestKEX, which turns a panic into the method's error; x/crypto's
// client and server, and the serving of their requests and channels, run
// on goroutines of the self-test, which recover a panic in x/crypto's code
// there; and so do the goroutines that check the results. Each such panic
// fails the self-test. A panic in x/crypto's
// code on a goroutine x/crypto started itself (its key exchange and read
// loops outside pqkex's methods) cannot be recovered from here and still
// ends the process.

// selfTestTimeout bounds each self-test handshake: an x/crypto that hangs
// one is refused after it.
const selfTestTimeout = 5 * time.Second

// selfTestRun is one handshake of the self-test.
type selfTestRun struct {
	name   string     // the private name it negotiates
	m      *method    // the method under test
	signer ssh.Signer // what the server signs with
	kex    *hybridKEX // registered under name, inside a selfTestKEX

	mu             sync.Mutex
	client, server *kexResult // copies of what hybridKEX returned
	panicked       error      // the first panic recovered during the handshake

	// What the last handshake left: the bytes each side wrote, and each
	// side's SessionID (nil if it failed).
	c2s, s2c             []byte
	clientSID, serverSID []byte
}

func (r *selfTestRun) observe(server bool, res *kexResult) {
	cp := &kexResult{H: bytes.Clone(res.H), K: bytes.Clone(res.K)}
	r.mu.Lock()
	defer r.mu.Unlock()
	if server {
		r.server = cp
	} else {
		r.client = cp
	}
}

// wipe clears the copies of K (of connections that are closed already).
func (r *selfTestRun) wipe() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, res := range []*kexResult{r.client, r.server} {
		if res != nil {
			clear(res.K)
		}
	}
}

func (r *selfTestRun) results() (client, server *kexResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.client, r.server
}

// recovered returns the first panic recovered during the run's handshake.
func (r *selfTestRun) recovered() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.panicked
}

// keepPanic records a recovered panic of the run and returns it.
func (r *selfTestRun) keepPanic(err error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.panicked == nil {
		r.panicked = err
	}
	return err
}

// selfTestKEX is what the self-test registers for a run: the run's
// hybridKEX, whose panics (in pqkex's code, its observe hook, or x/crypto
// code it calls) on x/crypto's goroutine become the method's error and
// fail the run.
type selfTestKEX struct{ r *selfTestRun }

func (k selfTestKEX) Client(p packetConn, rand io.Reader, magics *handshakeMagics) (res *kexResult, err error) {
	defer k.recoverKEX("Client", &res, &err)
	return k.r.kex.Client(p, rand, magics)
}

func (k selfTestKEX) Server(p packetConn, rand io.Reader, magics *handshakeMagics, priv ssh.AlgorithmSigner, algo string) (res *kexResult, err error) {
	defer k.recoverKEX("Server", &res, &err)
	return k.r.kex.Server(p, rand, magics, priv, algo)
}

// recoverKEX, deferred by selfTestKEX's methods, turns a panic into their
// result.
func (k selfTestKEX) recoverKEX(method string, res **kexResult, err *error) {
	if v := recover(); v != nil {
		*res = nil
		*err = k.r.keepPanic(panicError("pqkex's "+method+" on x/crypto's goroutine", v))
	}
}

// panicSite names the function and line where the panic being recovered
// was raised (the first frame below runtime.gopanic outside the runtime),
// for the self-test's error. Called from a deferred function.
func panicSite() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	panicking := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			panicking = true
		case panicking && !strings.HasPrefix(f.Function, "runtime."):
			return fmt.Sprintf("%s, %s:%d", f.Function, filepath.Base(f.File), f.Line)
		}
		if !more {
			return "an unknown function"
		}
	}
}

// recoverCheck, deferred on a goroutine of the self-test that checks
// results, turns a panic there into *err.
func recoverCheck(what string, err *error) {
	if v := recover(); v != nil {
		*err = panicError(what, v)
	}
}

// recoverSide, deferred on a goroutine of the self-test that runs
// x/crypto's client or server or serves their connection, turns a panic in
// x/crypto's code there into *err (if err is not nil) and keeps it as the
// run's.
func (r *selfTestRun) recoverSide(what string, err *error) {
	if v := recover(); v != nil {
		e := r.keepPanic(panicError(what, v))
		if err != nil {
			*err = e
		}
	}
}

func panicError(what string, v any) error {
	return fmt.Errorf("a panic in %s: %v (in %s)", what, v, panicSite())
}

// selfTest runs the self-test for methods (each distinct method about to
// be registered; nistp256Method must be among them). It changes x/crypto's
// registry only while it runs and restores it before returning.
func selfTest(methods []*method) error {
	hostSigner, err := throwawaySigner()
	if err != nil {
		return err
	}
	otherSigner, err := throwawaySigner()
	if err != nil {
		return err
	}
	hostKey := hostSigner.PublicKey()

	var runs []*selfTestRun
	add := func(m *method, signer ssh.Signer) *selfTestRun {
		r := &selfTestRun{
			name:   "pqkex-self-test-" + strconv.Itoa(len(runs)) + "-" + m.name + "@pqkex.invalid",
			m:      m,
			signer: signer,
		}
		r.kex = &hybridKEX{m: r.m, observe: r.observe}
		runs = append(runs, r)
		return r
	}
	honest := make([]*selfTestRun, len(methods))
	for i, m := range methods {
		honest[i] = add(m, hostSigner)
	}
	otherKey := add(nistp256Method, lyingSigner{shown: hostSigner, signs: otherSigner})
	corrupted := add(nistp256Method, lyingSigner{shown: hostSigner, signs: hostSigner, corrupt: true})

	// The registry is replaced, never written in place (see registerWith),
	// and put back on every path.
	old := kexAlgoMap
	trial := maps.Clone(old)
	for _, r := range runs {
		trial[r.name] = selfTestKEX{r}
	}
	kexAlgoMap = trial
	defer func() { kexAlgoMap = old }()
	defer func() {
		for _, r := range runs {
			r.wipe()
		}
	}()

	// The handshakes are independent: they run at once (x/crypto's
	// registry is only read meanwhile), and the first failure in the order
	// below is reported.
	checks := make([]func() error, 0, len(runs))
	for _, r := range honest {
		checks = append(checks, func() error {
			if err := r.checkHonest(hostKey); err != nil {
				return fmt.Errorf("%s: %w", r.m.name, err)
			}
			return nil
		})
	}
	checks = append(checks,
		func() error {
			return otherKey.checkRejected(hostKey, "a host key signature made with another key than the host key it was shown")
		},
		func() error { return corrupted.checkRejected(hostKey, "a corrupted host key signature") },
	)
	errs := make([]error, len(checks))
	var wg sync.WaitGroup
	for i, check := range checks {
		wg.Go(func() {
			defer recoverCheck("the self-test's checks", &errs[i])
			errs[i] = check()
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkRejected runs a handshake with a dishonest server and checks step 2
// of the list above: x/crypto's client must fail it, and only after
// pqkex's key exchange returned (so the failure is the signature's).
func (r *selfTestRun) checkRejected(hostKey ssh.PublicKey, what string) error {
	clientErr, _, err := r.handshake(hostKey)
	if err != nil {
		return err
	}
	if err := r.recovered(); err != nil {
		return fmt.Errorf("%s: the handshake with %s: %w", r.m.name, what, err)
	}
	client, _ := r.results()
	switch {
	case clientErr == nil:
		return fmt.Errorf("%s: x/crypto's client accepted %s", r.m.name, what)
	case client == nil:
		return fmt.Errorf("%s: the handshake with %s failed before pqkex's key exchange returned, so host key verification could not be shown: %v", r.m.name, what, clientErr)
	}
	return nil
}

// checkHonest runs an honest handshake and checks step 1 of the list above.
func (r *selfTestRun) checkHonest(hostKey ssh.PublicKey) error {
	clientErr, serverErr, err := r.handshake(hostKey)
	if err != nil {
		return err
	}
	if err := r.recovered(); err != nil {
		return err
	}
	if clientErr != nil && serverErr != nil {
		// Usually one side's failure closed the connection on the other:
		// both errors are needed to see which.
		return fmt.Errorf("x/crypto's client failed the handshake: %w; the server: %v", clientErr, serverErr)
	}
	if clientErr != nil {
		return fmt.Errorf("x/crypto's client failed the handshake: %w", clientErr)
	}
	if serverErr != nil {
		return fmt.Errorf("x/crypto's server failed the handshake: %w", serverErr)
	}
	return r.verifyHonest()
}

// verifyHonest checks what a completed honest handshake left against the
// wire: the K both sides found, H and the session identifiers, and the
// session keys and sequence numbers of both directions.
func (r *selfTestRun) verifyHonest() error {
	client, server := r.results()
	if client == nil || server == nil {
		return errors.New("x/crypto completed a handshake without calling pqkex's key exchange on both sides")
	}
	if !bytes.Equal(client.K, server.K) {
		return errors.New("client and server derived different shared secrets")
	}
	t, err := readTranscript(r.m.hash, r.c2s, r.s2c, client.K)
	if err != nil {
		return fmt.Errorf("reading the recorded handshake: %w", err)
	}
	H := t.H
	if !bytes.Equal(client.H, H) || !bytes.Equal(server.H, H) {
		return errors.New("x/crypto gave pqkex's key exchange other identification lines or KEXINITs than it sent (the exchange hash differs from the one computed from the wire)")
	}
	if !bytes.Equal(r.clientSID, H) || !bytes.Equal(r.serverSID, H) {
		return errors.New("x/crypto's session identifier is not the exchange hash pqkex's key exchange returned")
	}
	if err := t.checkSessionKeys(r.m.hash, client.K); err != nil {
		return fmt.Errorf("x/crypto did not derive its keys from pqkex's K and H: %w", err)
	}
	return nil
}

// handshake runs x/crypto's client and server over a sshwire.MemPipe, negotiating
// r.name, aes256-ctr and hmac-sha2-512 (available in every mode, FIPS 140-3
// only-mode included), and returns each side's handshake error (a panic
// in x/crypto's code on these goroutines becomes one, and is kept as the
// run's). err is non-nil only when a side did not finish within
// selfTestTimeout.
func (r *selfTestRun) handshake(hostKey ssh.PublicKey) (clientErr, serverErr, err error) {
	set := func(c *ssh.Config) {
		c.KeyExchanges = []string{r.name}
		c.Ciphers = []string{selfTestCipher}
		c.MACs = []string{selfTestMAC}
	}
	scfg := &ssh.ServerConfig{NoClientAuth: true}
	set(&scfg.Config)
	scfg.AddHostKey(r.signer)
	ccfg := &ssh.ClientConfig{
		User:              "pqkex-self-test",
		HostKeyCallback:   ssh.FixedHostKey(hostKey),
		HostKeyAlgorithms: []string{ssh.KeyAlgoECDSA256},
	}
	set(&ccfg.Config)

	cc, sc := sshwire.MemPipe(true)
	defer cc.Close()
	// Each side's requests and channels are served until x/crypto closes
	// them, when its connection ends.
	var serving sync.WaitGroup
	serve := func(reqs <-chan *ssh.Request, chans <-chan ssh.NewChannel) {
		serving.Go(func() {
			defer r.recoverSide("x/crypto's DiscardRequests", nil)
			ssh.DiscardRequests(reqs)
		})
		serving.Go(func() {
			defer r.recoverSide("rejecting x/crypto's channels", nil)
			rejectChannels(chans)
		})
	}
	serverDone, clientDone := make(chan side, 1), make(chan side, 1)
	go func() {
		var res side
		defer func() { serverDone <- res }()
		defer r.recoverSide("x/crypto's NewServerConn", &res.err)
		conn, chans, reqs, err := ssh.NewServerConn(sc, scfg)
		if err != nil {
			res.err = err
			return
		}
		serve(reqs, chans)
		res.sid = bytes.Clone(conn.SessionID())
		conn.Wait() // until the client closes the pipe
	}()
	go func() {
		var res side
		defer func() { clientDone <- res }()
		defer r.recoverSide("x/crypto's NewClientConn", &res.err)
		conn, chans, reqs, err := ssh.NewClientConn(cc, "pqkex-self-test", ccfg)
		if err != nil {
			res.err = err
			return
		}
		serve(reqs, chans)
		res.sid = bytes.Clone(conn.SessionID())
		conn.Close()
	}()
	// An x/crypto that hangs a handshake is refused after the timeout. Its
	// goroutines end once the pipe, closed on return, fails their reads,
	// unless x/crypto hangs elsewhere: the one case in which the self-test
	// may leave something running.
	timeout := time.NewTimer(selfTestTimeout)
	defer timeout.Stop()
	var client, server side
	select {
	case client = <-clientDone:
	case <-timeout.C:
		return nil, nil, errors.New("x/crypto's client did not finish a self-test handshake in " + selfTestTimeout.String())
	}
	cc.Close() // ends the server's connection, whatever the client did
	select {
	case server = <-serverDone:
	case <-timeout.C:
		return nil, nil, errors.New("x/crypto's server did not finish a self-test handshake in " + selfTestTimeout.String())
	}
	served := make(chan struct{})
	go func() {
		serving.Wait()
		close(served)
	}()
	select {
	case <-served:
	case <-timeout.C:
		return nil, nil, errors.New("x/crypto did not close a self-test connection's requests and channels in " + selfTestTimeout.String())
	}
	r.c2s, r.s2c = cc.Written(), sc.Written()
	r.clientSID, r.serverSID = client.sid, server.sid
	return client.err, server.err, nil
}

// side is what one side of a self-test handshake left: its SessionID,
// or its error.
type side struct {
	sid []byte
	err error
}

func rejectChannels(chans <-chan ssh.NewChannel) {
	for ch := range chans {
		ch.Reject(ssh.Prohibited, "")
	}
}

// throwawaySigner returns an ECDSA P-256 host key made for one self-test
// (approved in FIPS 140-3 mode, and cheaper to start than Ed25519, whose
// first use in a process builds its base point tables: 12 M instructions
// of a cold Register's 84 M).
func throwawaySigner() (ssh.AlgorithmSigner, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		return nil, err
	}
	as, ok := s.(ssh.AlgorithmSigner)
	if !ok {
		return nil, errors.New("x/crypto's ECDSA signer is not an ssh.AlgorithmSigner")
	}
	return as, nil
}

// lyingSigner presents the public key of one signer and signs with
// another, or corrupts its signature: the self-test's dishonest servers.
type lyingSigner struct {
	shown   ssh.Signer
	signs   ssh.AlgorithmSigner
	corrupt bool
}

func (s lyingSigner) PublicKey() ssh.PublicKey { return s.shown.PublicKey() }

func (s lyingSigner) Sign(rand io.Reader, data []byte) (*ssh.Signature, error) {
	return s.lie(s.signs.Sign(rand, data))
}

func (s lyingSigner) SignWithAlgorithm(rand io.Reader, data []byte, algo string) (*ssh.Signature, error) {
	return s.lie(s.signs.SignWithAlgorithm(rand, data, algo))
}

func (s lyingSigner) lie(sig *ssh.Signature, err error) (*ssh.Signature, error) {
	if err != nil {
		return nil, err
	}
	if s.corrupt {
		sig.Blob = bytes.Clone(sig.Blob)
		sig.Blob[len(sig.Blob)/2] ^= 1
	}
	return sig, nil
}
