package main

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/metrics"
)

// onRunMetrics, if set, is handed each run's metrics as the run begins
// (tests read their final figures after the server has stopped).
var onRunMetrics func(*metrics.Run)

// addMetricsFlag adds --metrics-addr to cmd (run, agent).
func addMetricsFlag(cmd *cobra.Command, addr *string, what string) {
	cmd.Flags().StringVar(addr, "metrics-addr", "", "serve Prometheus metrics of "+what+" at http://ADDR"+metrics.Path+
		" on this host:port (e.g. 127.0.0.1:9464; :9464 is every interface); default: none served")
}

// serveMetrics listens on addr, before the command starts its work, and
// serves reg there until the returned stop is called; addr "" serves
// nothing. A bad address or a port in use is the one error.
func serveMetrics(cmd *cobra.Command, addr string, reg *prometheus.Registry) (stop func(), err error) {
	if addr == "" {
		return func() {}, nil
	}
	srv, err := metrics.Listen(addr, reg)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "metrics: serving http://%s%s\n", srv.Addr(), metrics.Path)
	return func() { srv.Close() }, nil
}
