package kat

import (
	"testing"

	"github.com/pqkex/pqkex/internal/hybrid"
	"github.com/pqkex/pqkex/mlkem1024nistp384"
	"github.com/pqkex/pqkex/mlkem768nistp256"
	"github.com/pqkex/pqkex/mlkem768x25519"
	"github.com/pqkex/pqkex/sntrup761x25519"
)

// methodNames are the method packages' names, beside this package's
// copies and the engine each stands for.
var methodNames = []struct {
	ours, theirs string
	m            *hybrid.Method
}{
	{nameMLKEM768X25519, mlkem768x25519.Name, &hybrid.MLKEM768X25519},
	{nameSNTRUP761X25519, sntrup761x25519.Name, &hybrid.SNTRUP761X25519},
	{aliasSNTRUP761X25519, sntrup761x25519.AliasName, &hybrid.SNTRUP761X25519},
	{nameMLKEM768NISTP256, mlkem768nistp256.Name, &hybrid.MLKEM768NISTP256},
	{nameMLKEM1024NISTP384, mlkem1024nistp384.Name, &hybrid.MLKEM1024NISTP384},
}

// methods are the four method packages' exported APIs, as vectors and
// the command give them to the runners.
var methods = Methods{
	Public(mlkem768x25519.Name, mlkem768x25519.NewClient, mlkem768x25519.Respond),
	Public(sntrup761x25519.Name, sntrup761x25519.NewClient, sntrup761x25519.Respond),
	Public(mlkem768nistp256.Name, mlkem768nistp256.NewClient, mlkem768nistp256.Respond),
	Public(mlkem1024nistp384.Name, mlkem1024nistp384.NewClient, mlkem1024nistp384.Respond),
}

// mustPublic is the public API of the method named name, from methods.
func mustPublic(name string) Exchange {
	ex, err := methods.Get(name)
	if err != nil {
		panic(err)
	}
	return ex
}

// TestMethodNames checks this package's copies of the methods' SSH names
// against the method packages' constants, and that each name reaches its
// method's engine, and the public API given for it.
func TestMethodNames(t *testing.T) {
	for _, c := range methodNames {
		if c.ours != c.theirs {
			t.Errorf("kat names %q, the method package %q", c.ours, c.theirs)
		}
		if engine(c.theirs) != c.m {
			t.Errorf("engine(%q) is not that method's engine", c.theirs)
		}
		ex := mustPublic(c.theirs)
		if ex.Method != c.m || ex.Label != "public" || ex.Name != c.theirs {
			t.Errorf("methods.Get(%q) = %s %s on another engine", c.theirs, ex.Label, ex.Name)
		}
	}
	if _, err := methods.Get("curve25519-sha256"); err == nil {
		t.Error(`methods.Get("curve25519-sha256") succeeded`)
	}
	if _, err := methods[:1].Get(mlkem768nistp256.Name); err == nil {
		t.Errorf("Get(%q) succeeded without that method", mlkem768nistp256.Name)
	}
	defer func() {
		if recover() == nil {
			t.Error(`Public("curve25519-sha256") did not panic`)
		}
	}()
	Public("curve25519-sha256", mlkem768x25519.NewClient, mlkem768x25519.Respond)
}
