package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Path is where the metrics are served; every other path is not found.
const Path = "/metrics"

// Limits of the metrics server: a scrape is one small GET answered in
// milliseconds, so a connection that sends slowly, reads slowly or sits
// idle is closed rather than holding a descriptor of the agent's.
const (
	// readTimeout bounds reading a whole request (headers within 10 s).
	readTimeout = 30 * time.Second
	// writeTimeout bounds writing a response, a scrape included.
	writeTimeout = 30 * time.Second
	// maxHeaderBytes bounds a request's headers (net/http's default is 1 MiB).
	maxHeaderBytes = 64 << 10
)

// idleTimeout is how long a keep-alive connection may wait for its next
// request before the server closes it: 30 s, longer than the 15 s scrape
// interval commonly configured, so Prometheus' connection is reused, while
// idle connections nobody uses are closed (a variable for the tests).
var idleTimeout = 30 * time.Second

// Server serves one registry's metrics over HTTP.
type Server struct {
	ln   net.Listener
	srv  *http.Server
	done chan struct{}
}

// Listen binds addr (host:port; port 0 picks one) at once, so a bad
// address or a port in use is an error before anything else starts, and
// serves reg's metrics on it at Path until Close.
func Listen(addr string, reg *prometheus.Registry) (*Server, error) {
	if addr == "" {
		return nil, errors.New("no address to listen on")
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%q is not host:port: %w", addr, err)
	}
	if port == "" {
		return nil, fmt.Errorf("%q names no port (0 picks a free one)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(Path, promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	s := &Server{ln: ln, srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: readTimeout,
		WriteTimeout: writeTimeout, IdleTimeout: idleTimeout, MaxHeaderBytes: maxHeaderBytes}, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.srv.Serve(ln)
	}()
	return s, nil
}

// Addr is the address the server listens on (with the port picked for a
// port 0).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server: scrapes under way get up to a second to finish.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.srv.Close()
	}
	<-s.done
	return err
}
