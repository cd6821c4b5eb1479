package ksdriver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestLookupReadsAnswersAndRefusals checks the Go side of the API layer's
// contract (kstreams/PROTOCOL.md): the key goes as hex, stale as a
// parameter; a 200 is an answer with its value's bytes, a 503 a refusal
// with its reason, and anything else an error.
func TestLookupReadsAnswersAndRefusals(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/kv/0a0b":
			if r.URL.Query().Get("stale") != "true" {
				t.Errorf("stale not sent: %s", r.URL)
			}
			w.Write([]byte(`{"forwarded_by":"b","found":true,"value":"c0ffee","instance":"a","copy":"standby","state":"standby","partition":3,"offset":42}`))
		case "/kv/ff":
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"refused":true,"reason":"restoring","instance":"a","partition":1}`))
		default:
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":"bad key"}`))
		}
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	ctx := context.Background()
	a, err := Lookup(ctx, srv.Client(), addr, []byte{0x0a, 0x0b}, true)
	if err != nil {
		t.Fatal(err)
	}
	v, err := a.Bytes()
	if err != nil || string(v) != "\xc0\xff\xee" || a.Refused || a.Instance != "a" || a.ForwardedBy != "b" || a.Copy != CopyStandby || a.Partition != 3 || a.Offset != 42 {
		t.Fatalf("answer %+v, value %x, %v", a, v, err)
	}
	r, err := Lookup(ctx, srv.Client(), addr, []byte{0xff}, false)
	if err != nil || !r.Refused || r.Reason != "restoring" || r.Status != http.StatusServiceUnavailable {
		t.Fatalf("refusal %+v, %v", r, err)
	}
	if _, err := Lookup(ctx, srv.Client(), addr, []byte{1}, false); err == nil || !strings.Contains(err.Error(), "HTTP 400") {
		t.Fatalf("a 400 gave %v", err)
	}
}

// TestAPIEventNamesTheAddress parses the api event into the address
// lookups go to.
func TestAPIEventNamesTheAddress(t *testing.T) {
	e, err := Parse([]byte(`{"ev":"api","instance":"i0","mono_ns":1,"wall_ms":2,"host":"127.0.0.1","port":40123}`))
	if err != nil {
		t.Fatal(err)
	}
	a, ok := e.(*API)
	if !ok || a.Addr() != "127.0.0.1:40123" {
		t.Fatalf("parsed %T %+v", e, e)
	}
}
