package javaprops

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseProperties(t *testing.T) {
	in := "# comment with trailing backslash \\\n" +
		"! bang comment\n" +
		"   \n" +
		"a=1\n" +
		"b : 2 \n" +
		"c 3\n" +
		"  d\t=\t  spaced value  \n" +
		"e=one,\\\n    two,\\\n\tthree\n" +
		"f=C:\\\\certs\\\\ca.pem\n" +
		"g=x\\=y\\:z \\u0041\\n\n" +
		"h\\ key=v\r\n" +
		"i=even\\\\\n" +
		"j=next\r" +
		"k=\n" +
		"l\n" +
		"#m=commented\n" +
		"a=last wins\n" +
		"n=ends at eof\\"
	got, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	lines := map[string]int{}
	for _, p := range got {
		m[p.Key] = p.Value
		lines[p.Key] = p.Line
	}
	want := map[string]string{
		"a": "last wins", "b": "2", "c": "3", "d": "spaced value",
		"e": "one,two,three", "f": `C:\certs\ca.pem`, "g": "x=y:z A",
		"h key": "v", "i": `even\`, "j": "next", "k": "", "l": "", "n": "ends at eof",
	}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("parsed\n%q\nwant\n%q", m, want)
	}
	if lines["e"] != 8 || lines["f"] != 11 {
		t.Errorf("line numbers: e=%d (want 8) f=%d (want 11)", lines["e"], lines["f"])
	}
	if got, err := Parse([]byte("pw=caf\xe9\n")); err != nil || got[0].Value != "café" {
		t.Errorf("ISO-8859-1: %+v, %v", got, err)
	}
	if _, err := Parse([]byte("x=\\u12g4secret\n")); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("bad \\u escape: %v", err)
	}
}

func TestEncodeRoundTrips(t *testing.T) {
	m := map[string]string{
		"plain": "v", "with space": "inner  blanks", "a=b:c": "x=y:z", "#notcomment": "!v",
		"multi": "line1\nline2\r\n\ttab", "unicode": "café ☕", "backslash": `C:\certs\ca.pem`, "empty": "",
		"sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p\"w";`,
	}
	got, err := Parse(Encode(m))
	if err != nil {
		t.Fatal(err)
	}
	back := map[string]string{}
	for _, p := range got {
		back[p.Key] = p.Value
	}
	if !reflect.DeepEqual(back, m) {
		t.Fatalf("round trip\n%q\nwant\n%q", back, m)
	}
}

// FuzzParse: the parser never panics, never quotes the text in an error,
// and whatever it reads, Encode writes back to the same properties. (Parse
// trims keys and values, as Kafka trims most settings, so what it returns
// has no blanks at either end to lose.)
func FuzzParse(f *testing.F) {
	for _, s := range []string{"a=1\n", "b : 2\n", "e=one,\\\n  two\n", "x=\\u0041\n", "# c\n!d\n", "k\\ e=v", "bad=\\u12g4secret"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		props, err := Parse(data)
		if err != nil {
			if len(data) > 8 && strings.Contains(err.Error(), string(data)) {
				t.Fatalf("error quotes the input: %v", err)
			}
			return
		}
		m := map[string]string{}
		for _, p := range props {
			m[p.Key] = p.Value
		}
		again, err := Parse(Encode(m))
		if err != nil {
			t.Fatalf("Encode output does not parse: %v", err)
		}
		back := map[string]string{}
		for _, p := range again {
			back[p.Key] = p.Value
		}
		if !reflect.DeepEqual(back, m) {
			t.Fatalf("round trip of %q: %q, want %q", data, back, m)
		}
	})
}
