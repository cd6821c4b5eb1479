package agent

import (
	"bytes"
	"context"
	"fmt"

	"github.com/restorebench/restorebench/ksdriver"
)

// Bounds of one control record. The brokers' default message.max.bytes is
// 1 MiB (1,048,588 bytes) and franz-go's default batch limit
// (ProducerBatchMaxBytes) 1,000,012 bytes: a reply encoded in more than
// maxControlRecord goes as reply_part records of partBytes of its
// encoding each (base64 in the part's JSON: 4/3 of that, with room left).
const (
	maxControlRecord = 900 << 10
	partBytes        = 600 << 10
	// maxParts bounds a reply's parts (about 600 MiB), so that a corrupt
	// or hostile part cannot make a coordinator hold more.
	maxParts = 1024
)

// sendReply writes a reply from this agent: as one record when it fits,
// else as its parts, in order. The coordinator puts them together
// (Coordinator.replyPart).
func (a *Agent) sendReply(ctx context.Context, out *Message) error {
	out.Agent = a.cfg.Name
	out.MonoNs = ksdriver.NowMonoNs()
	b := out.Encode()
	if len(b) <= maxControlRecord {
		return a.bus.send(ctx, ControlTopic, a.cfg.Name, b)
	}
	n := (len(b) + partBytes - 1) / partBytes
	if n > maxParts {
		return fmt.Errorf("a reply of %d bytes is more than %d parts of %d bytes", len(b), maxParts, partBytes)
	}
	for i := range n {
		piece := b[i*partBytes : min(len(b), (i+1)*partBytes)]
		part := &Message{Type: TypeReplyPart, Agent: a.cfg.Name, Run: out.Run, ID: out.ID, Op: out.Op, Part: i, Parts: n, Data: piece, MonoNs: out.MonoNs}
		if err := a.bus.send(ctx, ControlTopic, a.cfg.Name, part.Encode()); err != nil {
			return fmt.Errorf("part %d of %d of a reply: %w", i+1, n, err)
		}
	}
	return nil
}

// replyPart keeps one part of a pending command's reply and returns the
// whole reply once every part came (nil before, or for a part that fits
// no pending command). A part seen twice (a repeated reply) is kept once.
// The caller holds c.mu.
func (c *Coordinator) replyPart(m *Message) (*Message, error) {
	p := c.pending[m.ID]
	if m.Run != c.cfg.Run || p == nil || p.agent != m.Agent {
		return nil, nil
	}
	if m.Parts < 1 || m.Parts > maxParts || m.Part < 0 || m.Part >= m.Parts || (p.parts != nil && len(p.parts) != m.Parts) {
		return nil, fmt.Errorf("agent %s: reply part %d of %d to %s: not a part of this reply", m.Agent, m.Part, m.Parts, m.ID)
	}
	if p.parts == nil {
		p.parts = make([][]byte, m.Parts)
	}
	if p.parts[m.Part] == nil {
		p.parts[m.Part] = m.Data
		p.have++
	}
	if p.have < m.Parts {
		return nil, nil
	}
	whole, err := DecodeMessage(bytes.Join(p.parts, nil))
	p.parts, p.have = nil, 0
	if err != nil {
		return nil, fmt.Errorf("agent %s: the reply to %s, put together from %d parts: %w", m.Agent, m.ID, m.Parts, err)
	}
	if whole.Type != TypeReply || whole.ID != m.ID || whole.Agent != m.Agent {
		return nil, fmt.Errorf("agent %s: the parts of the reply to %s make no reply to it", m.Agent, m.ID)
	}
	return whole, nil
}
