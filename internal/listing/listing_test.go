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

func TestOr(t *testing.T) {
	for _, tc := range []struct {
		items []string
		want  string
	}{
		{nil, ""},
		{[]string{"window"}, "window"},
		{[]string{"window", "session"}, "window or session"},
		{[]string{"cold", "warm", "standby"}, "cold, warm or standby"},
	} {
		if got := Or(tc.items); got != tc.want {
			t.Errorf("Or(%q) = %q, want %q", tc.items, got, tc.want)
		}
	}
}
