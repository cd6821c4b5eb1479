package report

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// This file is a minimal Chrome DevTools Protocol client for the browser
// test: it starts headless Chromium, speaks just enough of RFC 6455 (text
// frames, masked writes, ping/pong) to send commands and collect console,
// log and exception events, and closes the browser. No browser download,
// no dependency: Debian's chromium package and the standard library.

// chromiumFlags keep headless Chromium quiet and offline.
var chromiumFlags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-default-apps", "--disable-extensions", "--hide-scrollbars", "--mute-audio",
	"--remote-debugging-port=0", "--remote-allow-origins=*",
}

// browser is a running headless Chromium with one page attached.
type browser struct {
	cmd    *exec.Cmd
	stderr *strings.Builder
	conn   net.Conn
	rd     *bufio.Reader
	nextID int
	// events are every CDP event received so far, in order.
	events []cdpEvent
}

type cdpEvent struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type cdpMessage struct {
	ID     int             `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// startBrowser launches bin headless with a fresh profile in profileDir
// and attaches to its first page.
func startBrowser(ctx context.Context, bin, profileDir string) (*browser, error) {
	args := append(append([]string(nil), chromiumFlags...), "--user-data-dir="+profileDir, "about:blank")
	b := &browser{cmd: exec.CommandContext(ctx, bin, args...), stderr: &strings.Builder{}}
	b.cmd.Stderr = b.stderr
	if err := b.cmd.Start(); err != nil {
		return nil, err
	}
	port, err := devToolsPort(ctx, profileDir)
	if err != nil {
		b.close()
		return nil, fmt.Errorf("%w; chromium stderr:\n%s", err, b.stderr)
	}
	ws, err := pageSocket(ctx, port)
	if err != nil {
		b.close()
		return nil, err
	}
	if err := b.dial(ws); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

// devToolsPort waits for Chromium to write DevToolsActivePort (its chosen
// port on the first line) into the profile directory.
func devToolsPort(ctx context.Context, profileDir string) (int, error) {
	path := filepath.Join(profileDir, "DevToolsActivePort")
	for {
		if b, err := os.ReadFile(path); err == nil {
			if line, _, _ := strings.Cut(string(b), "\n"); line != "" {
				return strconv.Atoi(strings.TrimSpace(line))
			}
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("chromium did not open its DevTools port: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// pageSocket finds the first page target's WebSocket URL.
func pageSocket(ctx context.Context, port int) (string, error) {
	for {
		req, _ := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("http://127.0.0.1:%d/json/list", port), nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			var targets []struct{ Type, WebSocketDebuggerURL string }
			err = json.NewDecoder(resp.Body).Decode(&targets)
			resp.Body.Close()
			for _, t := range targets {
				if t.Type == "page" && t.WebSocketDebuggerURL != "" {
					return t.WebSocketDebuggerURL, nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("no page target on DevTools port %d: %v", port, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// dial opens the WebSocket: an HTTP/1.1 upgrade, then frames.
func (b *browser) dial(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return err
	}
	conn, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
	if err != nil {
		return err
	}
	key := make([]byte, 16)
	rand.Read(key)
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
		u.RequestURI(), u.Host, base64.StdEncoding.EncodeToString(key))
	rd := bufio.NewReaderSize(conn, 1<<16)
	resp, err := http.ReadResponse(rd, nil)
	if err != nil {
		conn.Close()
		return err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		conn.Close()
		return fmt.Errorf("websocket upgrade: %s", resp.Status)
	}
	b.conn, b.rd = conn, rd
	return nil
}

// writeFrame sends one masked frame (clients must mask).
func (b *browser) writeFrame(opcode byte, payload []byte) error {
	hdr := []byte{0x80 | opcode}
	switch n := len(payload); {
	case n < 126:
		hdr = append(hdr, 0x80|byte(n))
	case n <= 0xffff:
		hdr = append(hdr, 0x80|126, byte(n>>8), byte(n))
	default:
		hdr = append(hdr, 0x80|127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	mask := make([]byte, 4)
	rand.Read(mask)
	hdr = append(hdr, mask...)
	masked := make([]byte, len(payload))
	for i, c := range payload {
		masked[i] = c ^ mask[i%4]
	}
	_, err := b.conn.Write(append(hdr, masked...))
	return err
}

// readMessage reads one whole text message, answering pings on the way.
func (b *browser) readMessage() ([]byte, error) {
	var msg []byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(b.rd, h[:]); err != nil {
			return nil, err
		}
		fin, opcode := h[0]&0x80 != 0, h[0]&0x0f
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var ext [2]byte
			if _, err := io.ReadFull(b.rd, ext[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(ext[:]))
		case 127:
			var ext [8]byte
			if _, err := io.ReadFull(b.rd, ext[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(ext[:])
		}
		var mask [4]byte
		if h[1]&0x80 != 0 {
			if _, err := io.ReadFull(b.rd, mask[:]); err != nil {
				return nil, err
			}
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(b.rd, payload); err != nil {
			return nil, err
		}
		if h[1]&0x80 != 0 {
			for i := range payload {
				payload[i] ^= mask[i%4]
			}
		}
		switch opcode {
		case 0x8:
			return nil, errors.New("websocket closed by chromium")
		case 0x9:
			if err := b.writeFrame(0xA, payload); err != nil {
				return nil, err
			}
			continue
		case 0xA:
			continue
		}
		msg = append(msg, payload...)
		if fin {
			return msg, nil
		}
	}
}

// call sends a command and waits for its result, keeping the events that
// arrive meanwhile.
func (b *browser) call(method string, params any, timeout time.Duration) (json.RawMessage, error) {
	b.nextID++
	id := b.nextID
	req, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if err := b.writeFrame(0x1, req); err != nil {
		return nil, err
	}
	b.conn.SetReadDeadline(time.Now().Add(timeout))
	defer b.conn.SetReadDeadline(time.Time{})
	for {
		m, err := b.next()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		if m.ID != id {
			continue
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		return m.Result, nil
	}
}

// next reads one message, recording it if it is an event.
func (b *browser) next() (cdpMessage, error) {
	raw, err := b.readMessage()
	if err != nil {
		return cdpMessage{}, err
	}
	var m cdpMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return cdpMessage{}, err
	}
	if m.Method != "" {
		b.events = append(b.events, cdpEvent{Method: m.Method, Params: m.Params})
	}
	return m, nil
}

// waitEvent returns once the named event has arrived.
func (b *browser) waitEvent(method string, timeout time.Duration) error {
	for _, e := range b.events {
		if e.Method == method {
			return nil
		}
	}
	b.conn.SetReadDeadline(time.Now().Add(timeout))
	defer b.conn.SetReadDeadline(time.Time{})
	for {
		m, err := b.next()
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", method, err)
		}
		if m.Method == method {
			return nil
		}
	}
}

// drain collects the events that arrive within d.
func (b *browser) drain(d time.Duration) {
	b.conn.SetReadDeadline(time.Now().Add(d))
	defer b.conn.SetReadDeadline(time.Time{})
	for {
		if _, err := b.next(); err != nil {
			return
		}
	}
}

// close ends the browser process and waits for it.
func (b *browser) close() {
	if b.conn != nil {
		b.call("Browser.close", map[string]any{}, 2*time.Second)
		b.conn.Close()
	}
	if b.cmd.Process != nil {
		done := make(chan struct{})
		go func() { b.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			b.cmd.Process.Kill()
			<-done
		}
	}
}
