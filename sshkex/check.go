package sshkex

import (
	"errors"
	"fmt"
	"reflect"
	"slices"

	"golang.org/x/crypto/ssh"
)

// mirrorTypes are the types checkXCrypto compares with x/crypto/ssh's own.
// Tests substitute deliberately wrong mirrors.
type mirrorTypes struct {
	kex    reflect.Type // the interface the registry's values satisfy
	result reflect.Type // the struct *kexResult points to
	magics reflect.Type // the struct *handshakeMagics points to
	conn   reflect.Type // the packetConn interface
}

var ourMirrors = mirrorTypes{
	kex:    reflect.TypeFor[kexAlgorithm](),
	result: reflect.TypeFor[kexResult](),
	magics: reflect.TypeFor[handshakeMagics](),
	conn:   reflect.TypeFor[packetConn](),
}

// registryTypeName is how reflect spells the type of x/crypto's registry.
const registryTypeName = "map[string]ssh.kexAlgorithm"

// checkXCrypto verifies that what sshkex is about to write into x/crypto/ssh
// will be read by x/crypto exactly as intended. It reads, and writes
// nothing. In order:
//
//  1. x/crypto's registry type, map[string]kexAlgorithm, is found among the
//     binary's types (not read from the variable, whose type go:linkname
//     cannot check), exactly once.
//  2. Its kexAlgorithm interface has exactly the mirror's methods: the same
//     number, names (unexported ones included), order and signatures. The
//     order and count fix the layout of the method table through which
//     x/crypto calls a registered value. Within the signatures, kexResult
//     and handshakeMagics must have the mirror's fields (names, types,
//     offsets) and size, and packetConn the mirror's complete method set.
//  3. The registry variable, read as x/crypto's map type, holds built-in
//     key exchanges implementing that interface, and x/crypto's own typed
//     code (Config.SetDefaults) finds every key found through the linked
//     variable: the variable is the map x/crypto uses.
//  4. The linked supportedKexAlgos and defaultKexAlgos hold the very strings
//     x/crypto's exported API returns (SupportedAlgorithms, SetDefaults),
//     compared by string header without dereferencing.
//
// The error names the first difference.
func checkXCrypto(m mirrorTypes) error {
	if m.kex.Kind() != reflect.Interface {
		return errors.New("mirror of kexAlgorithm is not an interface")
	}
	maps := xcryptoTypes(registryTypeName, reflect.Type.Elem)
	if len(maps) != 1 {
		return fmt.Errorf("x/crypto/ssh has %d types %s (want 1): its key exchange registry changed", len(maps), registryTypeName)
	}
	registry := maps[0]
	if registry.Kind() != reflect.Map || registry.Key() != reflect.TypeFor[string]() {
		return fmt.Errorf("x/crypto/ssh's registry type %v is not a map keyed by string", registry)
	}
	if err := sameInterface(m, registry.Elem(), m.kex); err != nil {
		return fmt.Errorf("x/crypto/ssh's kexAlgorithm: %w", err)
	}
	if err := faultSafe("kexAlgoMap", func() error { return checkRegistry(registry) }); err != nil {
		return err
	}
	if err := faultSafe("supportedKexAlgos, defaultKexAlgos", checkLists); err != nil {
		return err
	}
	return nil
}

// checkRegistry reads x/crypto's registry through its own map type and
// cross-checks its keys with x/crypto's typed code.
func checkRegistry(registry reflect.Type) error {
	view := registryView(registry)
	if view.IsNil() || view.Len() == 0 {
		return errors.New("x/crypto/ssh's key exchange registry (kexAlgoMap) is missing or empty")
	}
	iface := registry.Elem()
	var names []string
	builtins := 0
	iter := view.MapRange()
	for iter.Next() {
		name, v := iter.Key().String(), iter.Value()
		if v.IsNil() {
			return fmt.Errorf("x/crypto/ssh's registry entry %q is nil", name)
		}
		if v.Elem().Type() == reflect.TypeFor[*hybridKEX]() {
			names = append(names, name) // ours, from an earlier Register
			continue
		}
		if !v.Elem().Type().Implements(iface) {
			return fmt.Errorf("x/crypto/ssh's registry entry %q (%v) does not implement %v", name, v.Elem().Type(), iface)
		}
		if v.Elem().Type().Elem().PkgPath() == xcryptoSSH {
			builtins++
		}
		names = append(names, name)
	}
	if builtins == 0 {
		return errors.New("x/crypto/ssh's registry holds no built-in key exchange")
	}
	slices.Sort(names)
	// x/crypto's SetDefaults keeps exactly the names its registry has.
	cfg := ssh.Config{KeyExchanges: names}
	cfg.SetDefaults()
	for _, name := range names {
		if !slices.Contains(cfg.KeyExchanges, name) {
			return fmt.Errorf("x/crypto/ssh does not find %q, which the linked kexAlgoMap holds: the variable is not x/crypto's registry", name)
		}
	}
	return nil
}

// checkLists compares the linked lists with x/crypto's exported copies.
func checkLists() error {
	if !sameStringHeaders(supportedKexAlgos, ssh.SupportedAlgorithms().KeyExchanges) {
		return errors.New("the linked supportedKexAlgos is not the list ssh.SupportedAlgorithms returns")
	}
	var cfg ssh.Config
	cfg.SetDefaults() // x/crypto's defaults, filtered by its registry
	if len(defaultKexAlgos) == 0 || len(defaultKexAlgos) > len(cfg.KeyExchanges) {
		return fmt.Errorf("the linked defaultKexAlgos (%d names) does not match ssh.Config.SetDefaults (%d)", len(defaultKexAlgos), len(cfg.KeyExchanges))
	}
	for i := range defaultKexAlgos {
		if !containsHeader(cfg.KeyExchanges, defaultKexAlgos[i]) {
			return fmt.Errorf("entry %d of the linked defaultKexAlgos is not in ssh.Config.SetDefaults' list", i)
		}
	}
	return nil
}

// sameFunc compares x/crypto's function type got (skipping skip leading
// parameters) with the mirror's function type want.
func sameFunc(m mirrorTypes, got, want reflect.Type, skip int) error {
	if got.NumIn()-skip != want.NumIn() || got.NumOut() != want.NumOut() || got.IsVariadic() != want.IsVariadic() {
		return fmt.Errorf("signature %v does not match the mirror %v", got, want)
	}
	for i := range want.NumIn() {
		if err := sameType(m, got.In(i+skip), want.In(i)); err != nil {
			return fmt.Errorf("parameter %d: %w", i, err)
		}
	}
	for i := range want.NumOut() {
		if err := sameType(m, got.Out(i), want.Out(i)); err != nil {
			return fmt.Errorf("result %d: %w", i, err)
		}
	}
	return nil
}

// sameType compares a type of x/crypto with the mirror's: identical types
// (io.Reader, string, error, ssh.AlgorithmSigner, []byte, crypto.Hash) must
// be equal; the mirrored unexported types must have the same shape.
func sameType(m mirrorTypes, got, want reflect.Type) error {
	// The mirrored types appear in the signatures as *kexResult,
	// *handshakeMagics and packetConn; m says what they must look like.
	switch want {
	case reflect.TypeFor[*kexResult]():
		if got.Kind() != reflect.Pointer {
			return fmt.Errorf("%v is not a pointer like the mirror %v", got, want)
		}
		return sameStruct(got.Elem(), m.result)
	case reflect.TypeFor[*handshakeMagics]():
		if got.Kind() != reflect.Pointer {
			return fmt.Errorf("%v is not a pointer like the mirror %v", got, want)
		}
		return sameStruct(got.Elem(), m.magics)
	case reflect.TypeFor[packetConn]():
		return sameInterface(m, got, m.conn)
	}
	switch {
	case got != want:
		return fmt.Errorf("type %v differs from %v", got, want)
	}
	return nil
}

// sameKindAndCount checks that got is of kind (named kindName in the
// error) and has as many members (fields or methods, counted by count) as
// the mirror want, which is of that kind.
func sameKindAndCount(got, want reflect.Type, kind reflect.Kind, kindName string, count func(reflect.Type) int, members string) error {
	if got.Kind() != kind {
		return fmt.Errorf("%v is not %s like the mirror %v", got, kindName, want)
	}
	if count(got) != count(want) {
		return fmt.Errorf("%v has %d %s, the mirror %d", got, count(got), members, count(want))
	}
	return nil
}

// sameStruct compares field names, types, offsets and the total size.
func sameStruct(got, want reflect.Type) error {
	if err := sameKindAndCount(got, want, reflect.Struct, "a struct", reflect.Type.NumField, "fields"); err != nil {
		return err
	}
	for i := range want.NumField() {
		g, w := got.Field(i), want.Field(i)
		if g.Name != w.Name || g.Type != w.Type || g.Offset != w.Offset {
			return fmt.Errorf("%v field %d is %s %v at offset %d, the mirror has %s %v at offset %d",
				got, i, g.Name, g.Type, g.Offset, w.Name, w.Type, w.Offset)
		}
	}
	if got.Size() != want.Size() || got.Align() != want.Align() {
		return fmt.Errorf("%v has size %d align %d, the mirror %d %d", got, got.Size(), got.Align(), want.Size(), want.Align())
	}
	return nil
}

// sameInterface compares the method sets of two interfaces by name and
// signature, in order (the order fixes the layout of method tables).
func sameInterface(m mirrorTypes, got, want reflect.Type) error {
	if err := sameKindAndCount(got, want, reflect.Interface, "an interface", reflect.Type.NumMethod, "methods"); err != nil {
		return err
	}
	for i := range want.NumMethod() {
		g, w := got.Method(i), want.Method(i)
		if g.Name != w.Name {
			return fmt.Errorf("%v method %d is %s, the mirror's is %s", got, i, g.Name, w.Name)
		}
		if err := sameFunc(m, g.Type, w.Type, 0); err != nil {
			return fmt.Errorf("%v method %s: %w", got, g.Name, err)
		}
	}
	return nil
}
