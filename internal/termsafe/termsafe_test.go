package termsafe

import (
	"bytes"
	"testing"
)

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		"plain-case@1GiB/changed=10": "plain-case@1GiB/changed=10",
		"a\x1b[31mred":               `a\x1b[31mred`,
		"x\ny\tz\r":                  `x\ny\tz\r`,
		"c1\u009b31m":                `c1\u009b31m`,
		"bidi\u202eevil":             `bidi\u202eevil`,
		"bad\xffutf8":                `bad\xffutf8`,
		"del\x7f":                    `del\x7f`,
		"ünïcode ×":                  "ünïcode ×",
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Lines("a\x1b]0;title\x07\n\tb"); got != "a\\x1b]0;title\\x07\n\tb" {
		t.Errorf("Lines: %q", got)
	}
	var b bytes.Buffer
	n, err := NewWriter(&b).Write([]byte("ok\x1b[2J\n"))
	if err != nil || n != 7 || b.String() != "ok\\x1b[2J\n" {
		t.Errorf("writer: %d %v %q", n, err, b.String())
	}
}

func TestScrub(t *testing.T) {
	type inner struct{ Name string }
	type rec struct {
		Case  string
		List  []string
		Props map[string]string
		Ptr   *inner
		Items []inner
		N     int
	}
	r := rec{Case: "a\x1b[31m", List: []string{"\nx"}, Props: map[string]string{"k\x07": "v\x1b"}, Ptr: &inner{"p\u202e"}, Items: []inner{{"i\r"}}, N: 3}
	Scrub(&r)
	if r.Case != `a\x1b[31m` || r.List[0] != `\nx` || r.Props[`k\x07`] != `v\x1b` || r.Ptr.Name != `p\u202e` || r.Items[0].Name != `i\r` || r.N != 3 {
		t.Fatalf("scrubbed: %+v %+v", r, *r.Ptr)
	}
}
