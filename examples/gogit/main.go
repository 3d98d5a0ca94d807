// Command gogit clones, pushes to and fetches from a git server over SSH
// with github.com/go-git/go-git/v5, its key exchange made post-quantum by
// pqkex: the one change to a plain go-git program is the sshkex.Register
// call in main. go-git's SSH transport leaves x/crypto's KeyExchanges
// empty, so after Register it offers mlkem768x25519-sha256 and
// sntrup761x25519-sha512 first; against github.com, which offers
// sntrup761x25519-sha512 as its only post-quantum method, that is what the
// connection negotiates, where go-git alone would fall back to
// curve25519-sha256.
//
//	gogit -identity ~/.ssh/id_ed25519 -known-hosts ~/.ssh/known_hosts clone ssh://git@example.com/repo.git DIR
//	gogit -identity ... -known-hosts ... push DIR FILE TEXT   (commits FILE with TEXT, pushes)
//	gogit -identity ... -known-hosts ... fetch DIR            (prints origin's branch: NAME HASH)
//
// It is tested against OpenSSH's sshd serving a bare repository through
// git-shell by the examples module's tests.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"github.com/pqkex/pqkex/sshkex"
)

var (
	user       = flag.String("user", "git", "SSH user name (go-git takes it from here, not from the URL)")
	identity   = flag.String("identity", "id_ed25519", "private key file (an unencrypted OpenSSH private key)")
	knownHosts = flag.String("known-hosts", "known_hosts", "known_hosts file holding the server's host key")
)

func main() {
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: gogit [flags] clone URL DIR | push DIR FILE TEXT | fetch DIR\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	// The one pqkex line: once, before anything dials. On error nothing
	// was changed and x/crypto still negotiates its own
	// mlkem768x25519-sha256 where the server has it: log and carry on.
	if err := sshkex.Register(); err != nil {
		log.Printf("sntrup761 and NIST-curve hybrids unavailable: %v", err)
	}

	// go-git's own SSH options: public-key auth from a file, and the host
	// key checked against a known_hosts file.
	auth, err := gitssh.NewPublicKeysFromFile(*user, *identity, "")
	if err != nil {
		log.Fatal(err)
	}
	auth.HostKeyCallback, err = gitssh.NewKnownHostsCallback(*knownHosts)
	if err != nil {
		log.Fatal(err)
	}

	args := flag.Args()
	switch {
	case len(args) == 3 && args[0] == "clone":
		err = clone(auth, args[1], args[2])
	case len(args) == 4 && args[0] == "push":
		err = push(auth, args[1], args[2], args[3])
	case len(args) == 2 && args[0] == "fetch":
		err = fetch(auth, args[1])
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// clone clones url into dir and prints the checked-out commit.
func clone(auth *gitssh.PublicKeys, url, dir string) error {
	repo, err := git.PlainClone(dir, false, &git.CloneOptions{URL: url, Auth: auth})
	if err != nil {
		return err
	}
	head, err := repo.Head()
	if err != nil {
		return err
	}
	fmt.Printf("cloned %s %s\n", head.Name().Short(), head.Hash())
	return nil
}

// push writes text to file in the work tree dir, commits it and pushes to
// origin, printing the new commit.
func push(auth *gitssh.PublicKeys, dir, file, text string) error {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644); err != nil {
		return err
	}
	if _, err := wt.Add(file); err != nil {
		return err
	}
	sig := &object.Signature{Name: "gogit example", Email: "gogit@example.com", When: time.Now()}
	hash, err := wt.Commit("add "+file, &git.CommitOptions{Author: sig})
	if err != nil {
		return err
	}
	if err := repo.Push(&git.PushOptions{Auth: auth}); err != nil {
		return err
	}
	fmt.Printf("pushed %s\n", hash)
	return nil
}

// fetch fetches from origin and prints origin's branches as NAME HASH.
func fetch(auth *gitssh.PublicKeys, dir string) error {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return err
	}
	err = repo.Fetch(&git.FetchOptions{Auth: auth})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return err
	}
	refs, err := repo.References()
	if err != nil {
		return err
	}
	return refs.ForEach(func(r *plumbing.Reference) error {
		if r.Name().IsRemote() && r.Type() == plumbing.HashReference {
			fmt.Printf("fetched %s %s\n", r.Name().Short(), r.Hash())
		}
		return nil
	})
}
