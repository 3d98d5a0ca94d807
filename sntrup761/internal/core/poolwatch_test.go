package core

import (
	"reflect"
	"runtime"
	"sync"
)

// watchPools runs f and returns every object the given pools' New made
// while it ran, per pool, in the order they were made. Before f runs each
// pool is emptied: two garbage collections clear every P's cache and the
// victim cache (Get cannot reach another P's private slot, and the
// goroutine may run on that P when f calls Get), then Get until
// New is called. So every object f takes from
// a pool was made by New during f (or put back by f after it took it from
// the pool during f): the caller then holds all the objects f worked in,
// and can inspect them after f returned them to the pool, whatever the
// pool (or a garbage collection) has done with them since. A test that
// instead takes an object from the pool afterwards may get a fresh zero
// one and check nothing.
//
// Not safe with parallel tests using the same pools.
func watchPools(f func(), pools ...*sync.Pool) [][]any {
	made := make([][]any, len(pools))
	runtime.GC()
	runtime.GC()
	for i, p := range pools {
		orig := p.New
		defer func() { p.New = orig }()
		drained := false
		p.New = func() any { drained = true; return orig() }
		for !drained {
			p.Get()
		}
		p.New = func() any {
			x := orig()
			made[i] = append(made[i], x)
			return x
		}
	}
	f()
	return made
}

// nonZeroFields names the fields of the struct *x that are not all zero,
// descending into embedded structs ("all" if x is not a struct pointer).
func nonZeroFields(x any) []string {
	v := reflect.ValueOf(x)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		if v.IsZero() {
			return nil
		}
		return []string{"all"}
	}
	return nonZeroIn(v.Elem(), "")
}

func nonZeroIn(v reflect.Value, prefix string) []string {
	var names []string
	for i := range v.NumField() {
		fv, ft := v.Field(i), v.Type().Field(i)
		switch {
		case fv.IsZero():
		case ft.Anonymous && fv.Kind() == reflect.Struct:
			names = append(names, nonZeroIn(fv, prefix+ft.Name+".")...)
		default:
			names = append(names, prefix+ft.Name)
		}
	}
	return names
}
