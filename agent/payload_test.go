package agent

import (
	"strings"
	"testing"
)

// withArgs sets m's Args to the encoding of args, as op.command does: a
// test's hand-made command.
func withArgs(m *Message, args any) *Message {
	m.Args = encodePayload(args)
	return m
}

// resultOf decodes reply r's Result into a T, failing the test on an
// error.
func resultOf[T any](t *testing.T, r *Message) T {
	t.Helper()
	var out T
	if err := decodeStrict(r.Result, &out); err != nil {
		t.Fatalf("the result of %s reply %+v: %v", r.Op, r, err)
	}
	return out
}

// TestPayloadsAreStrict: a command's arguments are its operation's own
// type and nothing else: a field the type lacks (another operation's, a
// newer build's, a forger's) is refused, naming it, before the agent does
// anything; a reply that should carry a result and does not is an error,
// not a zero result.
func TestPayloadsAreStrict(t *testing.T) {
	cmd := func(op string, args any) *Message {
		return withArgs(&Message{Type: TypeCommand, Protocol: ProtocolVersion, Run: "r", ID: "c1", Op: op, Fleet: "app", Instance: "i0"}, args)
	}
	if err := validate(cmd(OpSend, SendArgs{Line: "digest"})); err != nil {
		t.Fatalf("a plain send: %v", err)
	}
	for _, tc := range []struct {
		name string
		m    *Message
		want string
	}{
		{"a field of another operation", cmd(OpSend, map[string]any{"line": "digest", "properties": map[string]string{"a": "b"}}), `send arguments: json: unknown field "properties"`},
		{"arguments to an operation without any", cmd(OpWipe, map[string]any{"line": "digest"}), `wipe arguments: json: unknown field "line"`},
		{"two values", withArgs(cmd(OpSend, nil), nil), ""},
		{"a value of the wrong type", cmd(OpStart, map[string]any{"properties": "application.id=app"}), "start arguments: json: cannot unmarshal string"},
	} {
		if tc.name == "two values" {
			tc.m.Args = []byte(`{"line":"digest"} {"line":"stop"}`)
			tc.want = "send arguments: more than one value"
		}
		if err := validate(tc.m); err == nil || err.Error() != tc.want && !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := opFetch.result("a1", &Message{Op: OpFetch, OK: true}); err == nil || !strings.Contains(err.Error(), "the reply to fetch holds no result") {
		t.Errorf("a fetch reply without its file: %v", err)
	}
	if _, err := opStop.result("a1", &Message{Op: OpStop, OK: true}); err != nil {
		t.Errorf("a stop reply, which has no result: %v", err)
	}
}
