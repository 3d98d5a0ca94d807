package tier

import (
	"testing"
)

func TestSize(t *testing.T) {
	short := testing.Short()
	for _, tc := range []struct {
		env  string
		want int
	}{{"", 2}, {"0", 2}, {"1", 3}} {
		t.Setenv(Env, tc.env)
		want := tc.want
		if want == 2 && short {
			want = 1
		}
		if got := Size(t, 1, 2, 3); got != want {
			t.Errorf("%s=%q (-short %v): Size = %d, want %d", Env, tc.env, short, got, want)
		}
		if Long(t) != (tc.env == "1") {
			t.Errorf("%s=%q: Long = %v", Env, tc.env, !(tc.env == "1"))
		}
	}
}

// fatalTB records a Fatalf instead of ending the test.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper()                        {}
func (f *fatalTB) Fatalf(format string, _ ...any) { f.msg = format }

func TestLongRefusesOtherValues(t *testing.T) {
	for _, v := range []string{"true", "yes", "2", " 1"} {
		t.Setenv(Env, v)
		f := &fatalTB{TB: t}
		if Long(f) || f.msg == "" {
			t.Errorf("%s=%q: Long = %v, failed %v; want false and a failure", Env, v, Long(f), f.msg != "")
		}
	}
}
