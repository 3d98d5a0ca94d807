//go:build !purego && linux

package core

import (
	"fmt"
	"runtime/debug"
	"syscall"
	"testing"
	"unsafe"
)

// guardPage returns the address of a page that cannot be read or written
// (PROT_NONE), right after a readable one: a buffer that ends there can
// be read past only by faulting. Its memory is unmapped when the test
// ends.
func guardPage(t *testing.T) unsafe.Pointer {
	size := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[size:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	return unsafe.Pointer(&mem[size])
}

// faults runs f and reports the fault it caused, as a recovered panic
// (debug.SetPanicOnFault), or nil.
func faults(f func()) (fault any) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() { fault = recover() }()
	f()
	return nil
}

// TestKernelsZeroCount: every count-driven kernel (encodeBulk*,
// decodeBulk*, dif16, dit16Products*, dif4Stage, dit4Stage) returns
// without touching memory when a count is zero (or negative): each is
// called with every pointer at a guard page (an empty buffer at the end of
// readable memory), where any load or store faults. Their loops test the
// counter after a pass, so without the check at entry a zero count runs
// them off the buffer. A call with a count of one shows the guard works.
func TestKernelsZeroCount(t *testing.T) {
	g := guardPage(t)
	b, u, c := (*byte)(g), (*uint32)(g), (*complex128)(g)
	kernels := []struct {
		name string
		call func(count int)
	}{
		{"encodeBulk1AVX2", func(n int) { encodeBulk1AVX2(b, u, 3, n) }},
		{"encodeBulk2AVX2", func(n int) { encodeBulk2AVX2(b, u, 3, n) }},
		{"decodeBulk1AVX2", func(n int) { decodeBulk1AVX2(u, u, b, 3, n) }},
		{"decodeBulk2AVX2", func(n int) { decodeBulk2AVX2(u, u, b, 3, n) }},
		{"dif16AVX2", func(n int) { dif16AVX2(c, n) }},
		{"dit16ProductsAVX2", func(n int) { dit16ProductsAVX2(c, c, c, n) }},
		{"dit16ProductSumsAVX2", func(n int) { dit16ProductSumsAVX2(c, c, c, c, c, n) }},
		{"dif4StageAVX2 (n)", func(n int) { dif4StageAVX2(c, 8*n, 2, c, c, c) }},
		{"dit4StageAVX2 (n)", func(n int) { dit4StageAVX2(c, 8*n, 2, c, c, c) }},
		{"dif4StageAVX2 (q)", func(n int) { dif4StageAVX2(c, 8, 2*n, c, c, c) }},
		{"dit4StageAVX2 (q)", func(n int) { dit4StageAVX2(c, 8, 2*n, c, c, c) }},
	}
	for _, k := range kernels {
		for _, n := range []int{0, -1} {
			if fault := faults(func() { k.call(n) }); fault != nil {
				if f, ok := fault.(interface{ Addr() uintptr }); ok {
					fault = fmt.Sprintf("%v, at the guard page%+d", fault, int(f.Addr()-uintptr(g)))
				}
				t.Errorf("%s with a count of %d touched memory: %v", k.name, n, fault)
			}
		}
	}
	// The control runs AVX2 instructions.
	needAsm(t)
	for _, k := range kernels {
		if faults(func() { k.call(1) }) == nil {
			t.Errorf("%s with a count of 1 on the guard page did not fault: the test shows nothing", k.name)
		}
	}
}
