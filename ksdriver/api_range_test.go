package ksdriver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRangeReadsLimitRefusals: a range refused because the instance
// gathers as many as it takes at once (HTTP 429) is a refusal with its
// reason, as a 503 is; a range over the caps (HTTP 400) is an error
// quoting the cap.
func TestRangeReadsLimitRefusals(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/range/00/ff":
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"refused":true,"reason":"too many ranges at once: this instance gathers 4 ranges at a time (restorebench.api.range.concurrency); retry later","limit":4,"instance":"a","partitions":[]}`))
		default:
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":"the range holds over 10000 entries (restorebench.api.range.max.entries); ask a narrower one","too_wide":true,"read":10001}`))
		}
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	ctx := context.Background()
	a, err := Range(ctx, srv.Client(), addr, []byte{0}, []byte{0xff}, false)
	if err != nil || !a.Refused || a.Status != http.StatusTooManyRequests || !strings.Contains(a.Reason, PropAPIRangeConcurrency) || a.Instance != "a" {
		t.Fatalf("429: %+v, %v", a, err)
	}
	if _, err := Range(ctx, srv.Client(), addr, []byte{0}, []byte{1}, false); err == nil || !strings.Contains(err.Error(), "HTTP 400") || !strings.Contains(err.Error(), "over 10000 entries") {
		t.Fatalf("400: %v", err)
	}
}
