package listing

import "testing"

func TestAnd(t *testing.T) {
	for _, tc := range []struct {
		items []string
		want  string
	}{
		{nil, ""},
		{[]string{"cold"}, "cold"},
		{[]string{"cold", "warm"}, "cold and warm"},
		{[]string{"cold", "warm", "standby"}, "cold, warm and standby"},
	} {
		if got := And(tc.items); got != tc.want {
			t.Errorf("And(%q) = %q, want %q", tc.items, got, tc.want)
		}
	}
}
