package agent

import (
	"strings"
	"testing"
)

// TestReplyPartsPutTogether: parts arriving out of order and twice (a
// repeated reply) make the one reply; a part that does not fit the reply
// under way is an error, not a reply.
func TestReplyPartsPutTogether(t *testing.T) {
	c := &Coordinator{cfg: CoordinatorConfig{Run: "r"}, pending: map[string]*pending{"c1": {agent: "a1"}}}
	whole := (&Message{Type: TypeReply, Agent: "a1", Run: "r", ID: "c1", Op: OpFetch, OK: true, Result: encodePayload(&Fetched{Data: []byte(strings.Repeat("x", 1800))})}).Encode()
	var parts []*Message
	for i := 0; i*1000 < len(whole); i++ {
		parts = append(parts, &Message{Type: TypeReplyPart, Agent: "a1", Run: "r", ID: "c1", Part: i, Data: whole[i*1000 : min(len(whole), (i+1)*1000)]})
	}
	for _, p := range parts {
		p.Parts = len(parts)
	}
	order := []int{2, 0, 0, 1}
	var got *Message
	for i, n := range order {
		m, err := c.replyPart(parts[n])
		if err != nil {
			t.Fatal(err)
		}
		if m != nil && i != len(order)-1 {
			t.Fatalf("a reply after %d of %d parts", i+1, len(parts))
		}
		got = m
	}
	if got == nil || string(resultOf[Fetched](t, got).Data) != strings.Repeat("x", 1800) || !got.OK {
		t.Fatalf("put together: %+v", got)
	}
	c.replyPart(parts[0])
	odd := *parts[1]
	odd.Parts = 7
	if _, err := c.replyPart(&odd); err == nil || !strings.Contains(err.Error(), "not a part of this reply") {
		t.Fatalf("a part of another count: %v", err)
	}
	other := *parts[1]
	other.Run = "another-run"
	if m, err := c.replyPart(&other); m != nil || err != nil {
		t.Fatalf("another run's part: %v, %v", m, err)
	}
}
