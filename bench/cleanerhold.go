package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/runs"
)

// releaseTimeout bounds putting a topic's cleaner setting back when a run
// ends, Ctrl-C included (the run's context is done by then).
const releaseTimeout = 30 * time.Second

// holdCleaner holds Kafka's log cleaner on topic for the rest of the run
// (profile hold_cleaner, cluster.HoldCleaner) and records the hold in fr.
// Holds are counted in the data directory's hold book (e.holdBook): a run
// holding a topic another live run holds joins that hold, and the last
// one released puts the topic's own setting back. The returned release
// ends this run's hold; one that fails is logged with what to set by hand
// (the book keeps the topic's own setting for the next hold). The
// embedded broker compacts only when a compaction scenario asks, so there
// the hold changes nothing.
func (e *Env) holdCleaner(ctx context.Context, topic string, fr *runs.Fill) (release func(), err error) {
	adm, closeAdm, err := e.Admin()
	if err != nil {
		return nil, err
	}
	// A fill made now created its topic held (heldFromCreation): its own
	// setting is none.
	h, err := cluster.HoldCleaner(ctx, adm, topic, e.holdBook(), !fr.Reused)
	if err != nil {
		closeAdm()
		return nil, err
	}
	fr.CleanerHold = &runs.CleanerHold{Setting: "min.compaction.lag.ms=" + cluster.HoldLag, Previous: h.Previous}
	own := "none, the broker's default"
	if h.Previous != "" {
		own = h.Previous
	}
	joined := ""
	if h.Joined > 0 {
		joined = fmt.Sprintf("; joining the hold of %d other run(s) on it", h.Joined)
	}
	e.Logf("fill: log cleaner held on %s for this run, so every restore reads the same records (%s; the topic's own "+
		"setting, put back at the end: %s%s)", topic, fr.CleanerHold.Setting, own, joined)
	return func() {
		defer closeAdm()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
		defer cancel()
		others, err := h.Release(rctx)
		switch {
		case err != nil:
			e.Logf("fill: %v", err)
		case others > 0:
			e.Logf("fill: this run's cleaner hold on %s released; the topic stays held for %d other run(s), the last of which "+
				"puts min.compaction.lag.ms back (%s)", topic, others, own)
		default:
			e.Logf("fill: log cleaner released on %s (min.compaction.lag.ms: %s)", topic, own)
		}
	}, nil
}

// holdBook is where this data directory counts its cleaner holds on the
// cluster's topics (cluster.HoldBook).
func (e *Env) holdBook() cluster.HoldBook {
	return cluster.HoldBookIn(filepath.Join(e.Opts.DataDir, "holds", e.ClusterID))
}

// heldFromCreation is the topic setting a fill's topic is created with
// when the run holds the cleaner: held from the first record, so the
// cleaner does not compact the log while the fill writes it (a fill of
// many rewrites of few keys would otherwise restore a fraction of what
// was written). The hold set after the fill finds it and takes it for no
// setting of the topic's own (it was created now), so the release at the
// end clears it; a fill interrupted before its end leaves its topic held
// until the next run refills it.
func heldFromCreation(hold bool) map[string]string {
	if !hold {
		return nil
	}
	return map[string]string{"min.compaction.lag.ms": cluster.HoldLag}
}

// errNoHold wraps a failed hold so the run's error names the setting and
// the ways on: the permission the hold needs (ALTER_CONFIGS on the topic,
// which a secured cluster may not grant), or a profile without the hold.
func errNoHold(err error) error {
	return fmt.Errorf("hold_cleaner: %w (the hold alters the topic's min.compaction.lag.ms, which needs the "+
		"AlterConfigs permission on it; or run a copy of the profile with hold_cleaner: false, whose "+
		"restores may then read different records)", err)
}
