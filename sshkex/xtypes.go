package sshkex

// This file holds sshkex's only uses of package unsafe besides go:linkname
// of x/crypto's three variables (mirror.go). Each function is small, reads
// only, and is exercised by the tests in guard_test.go and by the builds
// against mutated copies of x/crypto in mutant_test.go. SECURITY.md lists
// them.

import (
	"fmt"
	"reflect"
	"runtime/debug"
	"unsafe"
)

// typesByString returns the type descriptors in the binary's type links
// (pointer, map, slice, array and channel types) whose String() is s. It is
// the reflect package's own lookup, which reflect keeps linkable for other
// packages ("Do not remove or change the type signature", go.dev/issue/67401).
// The result is []*abi.Type; the elements are used only through toType.
//
//go:linkname typesByString reflect.typesByString
func typesByString(s string) []unsafe.Pointer

// toType turns a type descriptor from typesByString into a reflect.Type
// (reflect's own function, linkable for the same reason).
//
//go:linkname toType reflect.toType
func toType(t unsafe.Pointer) reflect.Type

// xcryptoTypes returns the types of the binary whose String() is s and that
// are built from a type of package golang.org/x/crypto/ssh (elem selects
// which named type, for composite types: for "map[string]ssh.kexAlgorithm"
// the map's element). It finds x/crypto's own unexported types without
// reading any x/crypto variable.
func xcryptoTypes(s string, named func(reflect.Type) reflect.Type) []reflect.Type {
	var out []reflect.Type
	for _, p := range typesByString(s) {
		if p == nil {
			continue
		}
		t := toType(p)
		if named(t).PkgPath() == xcryptoSSH {
			out = append(out, t)
		}
	}
	return out
}

const xcryptoSSH = "golang.org/x/crypto/ssh"

// registryView returns kexAlgoMap as a reflect.Value of type t, x/crypto's
// own map type (found by xcryptoTypes and compared with the mirrors before
// this is called). go:linkname binds a variable by name only; reading it
// with x/crypto's type rather than the mirror's means a mismatch between the
// two cannot make reflect misread it.
func registryView(t reflect.Type) reflect.Value {
	return reflect.NewAt(t, unsafe.Pointer(&kexAlgoMap)).Elem()
}

// sameStringHeaders reports whether view and typed are the same strings in
// the same order, by comparing string headers (data pointer and length)
// without reading the bytes. typed comes from x/crypto's exported API;
// view is one of the linked slices, which could in principle hold another
// element type, so its elements' bytes are never dereferenced.
func sameStringHeaders(view, typed []string) bool {
	if len(view) != len(typed) {
		return false
	}
	for i := range typed {
		if len(view[i]) != len(typed[i]) || unsafe.StringData(view[i]) != unsafe.StringData(typed[i]) {
			return false
		}
	}
	return true
}

// containsHeader reports whether list holds a string with s's header.
func containsHeader(list []string, s string) bool {
	for _, e := range list {
		if len(e) == len(s) && unsafe.StringData(e) == unsafe.StringData(s) {
			return true
		}
	}
	return false
}

// faultSafe runs f on a goroutine of its own on which a memory fault at an
// unexpected address panics instead of crashing the process
// (debug.SetPanicOnFault), and turns such a panic into an error. The checks
// run under it read x/crypto memory only after comparing types; this is the
// second line of defence, for a layout change that the type comparison could
// not see.
func faultSafe(what string, f func() error) error {
	done := make(chan error, 1)
	go func() {
		debug.SetPanicOnFault(true)
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("%s: reading x/crypto's internals failed: %v", what, r)
			}
		}()
		done <- f()
	}()
	return <-done
}
