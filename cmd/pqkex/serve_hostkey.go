package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/crypto/ssh"
)

// defaultHostKeyFile is where "pqkex serve" keeps its host key unless
// -hostkey says otherwise: pqkex/serve_ed25519 in the user's
// configuration directory (os.UserConfigDir: $XDG_CONFIG_HOME or
// ~/.config on Linux, ~/Library/Application Support on macOS,
// %AppData% on Windows). "" if there is none.
func defaultHostKeyFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "pqkex", "serve_ed25519")
}

// loadOrCreateHostKey reads the OpenSSH private host key in path, or, if
// there is no such file, creates a new ed25519 key there (mode 0600, its
// directory 0700 if it has to be made) and reports created. Two servers
// starting at once end up with the same key: the file appears whole or
// not at all (written aside, then hard-linked into place, which fails if
// another got there first, whose key is then read). path "" is a new key
// held in memory only. The key is secret: errors name the file, never
// its contents.
func loadOrCreateHostKey(path string) (s ssh.Signer, created bool, err error) {
	if path == "" {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, false, err
		}
		s, err := ssh.NewSignerFromKey(priv)
		return s, false, err
	}
	s, err = loadHostKey(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return s, false, err
	}
	if err := createHostKey(path); err != nil {
		if errors.Is(err, fs.ErrExist) { // another process created it meanwhile
			s, err := loadHostKey(path)
			return s, false, err
		}
		return nil, false, fmt.Errorf("creating host key %s: %w", path, err)
	}
	s, err = loadHostKey(path)
	return s, err == nil, err
}

// createHostKey writes a new ed25519 key to path, which must not exist.
func createHostKey(path string) error {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	block, err := ssh.MarshalPrivateKey(priv, "pqkex serve host key")
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".serve_key-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(pem.EncodeToMemory(block)); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Link(tmp.Name(), path)
}

// maxKeyFile bounds the key file read: an OpenSSH private key is
// a few kilobytes (an RSA key of 16384 bits under 13 KB).
const maxKeyFile = 1 << 20

// minRSABits is the smallest RSA key accepted, as OpenSSH's
// RequiredRSASize default.
const minRSABits = 2048

// loadHostKey reads the host key file of serve -hostkey and check
// -listen -hostkey (loadKeyFile).
func loadHostKey(path string) (ssh.Signer, error) { return loadKeyFile("host key", path) }

// loadIdentity reads the private key file of check -identity, the key
// check authenticates to a server with (loadKeyFile: refused as a host
// key is, when others could read it).
func loadIdentity(path string) (ssh.Signer, error) { return loadKeyFile("identity", path) }

// loadKeyFile reads an unencrypted OpenSSH (or PEM) private key file,
// what naming it in errors ("host key", "identity"). As sshd does with
// its host keys and ssh with an identity, it refuses a file that is not
// a regular file or that others could read or replace (checkKeyFile:
// group- or world-accessible, or owned by another user), saying how to
// fix it, and an RSA key under minRSABits. The key is secret: errors
// name the file, never its contents. A missing file is an error
// satisfying errors.Is(err, fs.ErrNotExist).
func loadKeyFile(what, path string) (ssh.Signer, error) {
	// Stat before opening: opening a FIFO would block until a writer
	// comes.
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %s is not a regular file (%s): give the path of an OpenSSH private key file", what, path, describeMode(fi.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi2, err := f.Stat(); err != nil {
		return nil, err
	} else if !os.SameFile(fi, fi2) {
		return nil, fmt.Errorf("%s %s was replaced while it was read", what, path)
	} else if err := checkKeyFile(what, path, fi2); err != nil {
		return nil, err
	}
	pem, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	defer clear(pem) // the private key's bytes, whatever becomes of them
	if err != nil {
		return nil, err
	}
	if len(pem) > maxKeyFile {
		return nil, fmt.Errorf("%s %s is larger than %d bytes: not a private key file", what, path, maxKeyFile)
	}
	s, err := ssh.ParsePrivateKey(pem)
	if err != nil {
		var missing *ssh.PassphraseMissingError
		if errors.As(err, &missing) {
			return nil, fmt.Errorf("%s %s is encrypted; use an unencrypted key", what, path)
		}
		return nil, fmt.Errorf("%s %s: %v", what, path, err)
	}
	if k, ok := s.PublicKey().(ssh.CryptoPublicKey); ok {
		if rk, ok := k.CryptoPublicKey().(*rsa.PublicKey); ok && rk.N.BitLen() < minRSABits {
			return nil, fmt.Errorf("%s %s is a %d-bit RSA key; at least %d bits are required (as OpenSSH's RequiredRSASize): "+
				"make a new key, e.g. ssh-keygen -t ed25519 -N '' -f FILE", what, path, rk.N.BitLen(), minRSABits)
		}
	}
	return s, nil
}

// describeMode names a file type for an error.
func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}
