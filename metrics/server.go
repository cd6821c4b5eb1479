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
	s := &Server{ln: ln, srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, done: make(chan struct{})}
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
