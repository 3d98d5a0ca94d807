package cpudebug

import "testing"

func TestOff(t *testing.T) {
	for _, tc := range []struct {
		godebug string
		want    bool
	}{
		{"", false},
		{"cpu.avx2=off", true},
		{"fips140=on,cpu.avx2=off", true},
		{"cpu.all=off", true},
		{"cpu.avx2=off,cpu.avx2=on", false},
		{"cpu.all=off,cpu.avx2=on", false},
		{"cpu.avx2=on,cpu.all=off", true},
		{"cpu.avx=off", false},
		{"cpu.avx2", false},
		{"cpu.aes=off", false},
	} {
		t.Setenv("GODEBUG", tc.godebug)
		if got := Off("avx2"); got != tc.want {
			t.Errorf("GODEBUG=%q: Off(avx2) = %v, want %v", tc.godebug, got, tc.want)
		}
	}
}
