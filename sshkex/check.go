package sshkex

import (
	"fmt"
	"io"
	"reflect"
	"slices"

	"golang.org/x/crypto/ssh"
)

// mirrorTypes are the types checkMirrors compares with x/crypto/ssh's own.
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

// checkMirrors verifies, by reflection on the values x/crypto/ssh itself put
// in its registry, that the mirrors describe x/crypto's types exactly: the
// method set of the registry's interface, each method's parameter and
// result types, and the fields (names, types, offsets) and sizes of the
// structs. It reads the registry but writes nothing. The error names the
// first difference.
func checkMirrors(m mirrorTypes, registry map[string]kexAlgorithm) error {
	if len(registry) == 0 {
		return fmt.Errorf("x/crypto/ssh's key exchange registry is empty")
	}
	if !slices.Contains(defaultKexAlgos, ssh.KeyExchangeMLKEM768X25519) && !slices.Contains(defaultKexAlgos, ssh.KeyExchangeCurve25519) {
		return fmt.Errorf("x/crypto/ssh's default key exchange list has neither %s nor %s", ssh.KeyExchangeMLKEM768X25519, ssh.KeyExchangeCurve25519)
	}
	names := make([]string, 0, len(registry))
	for name := range registry {
		names = append(names, name)
	}
	slices.Sort(names)
	checked := 0
	for _, name := range names {
		v := registry[name]
		if _, ours := v.(*hybridKEX); ours {
			continue
		}
		if v == nil {
			return fmt.Errorf("x/crypto/ssh's registry entry %q is nil", name)
		}
		if err := checkImplementation(m, reflect.TypeOf(v)); err != nil {
			return fmt.Errorf("x/crypto/ssh's %q (%v): %w", name, reflect.TypeOf(v), err)
		}
		checked++
	}
	if checked == 0 {
		return fmt.Errorf("x/crypto/ssh's registry holds no built-in key exchange to compare with")
	}
	return nil
}

// checkImplementation compares the methods of one built-in key exchange
// type with the mirror interface.
func checkImplementation(m mirrorTypes, impl reflect.Type) error {
	if m.kex.Kind() != reflect.Interface {
		return fmt.Errorf("mirror of kexAlgorithm is not an interface")
	}
	for i := range m.kex.NumMethod() {
		want := m.kex.Method(i)
		got, ok := impl.MethodByName(want.Name)
		if !ok {
			return fmt.Errorf("has no method %s", want.Name)
		}
		// got.Type has the receiver as its first parameter.
		if err := sameFunc(m, got.Type, want.Type, 1); err != nil {
			return fmt.Errorf("method %s: %w", want.Name, err)
		}
	}
	// The registry's interface has exactly the mirror's methods if every
	// built-in value has them with these exact types; methods the built-in
	// types have beyond that are irrelevant.
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

// sameStruct compares field names, types, offsets and the total size.
func sameStruct(got, want reflect.Type) error {
	if got.Kind() != reflect.Struct {
		return fmt.Errorf("%v is not a struct like the mirror %v", got, want)
	}
	if got.NumField() != want.NumField() {
		return fmt.Errorf("%v has %d fields, the mirror %d", got, got.NumField(), want.NumField())
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
	if got.Kind() != reflect.Interface {
		return fmt.Errorf("%v is not an interface like the mirror %v", got, want)
	}
	if got.NumMethod() != want.NumMethod() {
		return fmt.Errorf("%v has %d methods, the mirror %d", got, got.NumMethod(), want.NumMethod())
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

var _ io.Reader // the mirror's signatures use io.Reader
