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

// TestMethodNames checks this package's copies of the methods' SSH names
// against the method packages' constants, and that each name reaches its
// method's engine with the constructors its package recorded there.
func TestMethodNames(t *testing.T) {
	for _, c := range methodNames {
		if c.ours != c.theirs {
			t.Errorf("kat names %q, the method package %q", c.ours, c.theirs)
		}
		if engine(c.theirs) != c.m {
			t.Errorf("engine(%q) is not that method's engine", c.theirs)
		}
		ex := MustPublic(c.theirs)
		if ex.Method != c.m || ex.Label != "public" {
			t.Errorf("MustPublic(%q) = %s on another engine", c.theirs, ex.Label)
		}
	}
	if _, ok := Public("curve25519-sha256"); ok {
		t.Error(`Public("curve25519-sha256") is ok`)
	}
}
