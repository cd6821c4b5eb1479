package runs

import "fmt"

// upgradeSchema2 brings a schema-2 file to schema 3. Schema 2 wrote a
// headline scenario's figure (a failover kill's longest gap, a scale-out's
// warmup assignment time, a rolling restart's downtime) into the record's
// restore figures as well: DurationSeconds and TotalSeconds (a kill's
// LoadSeconds too) held it, and RecordsPerSec the records over it. Schema 3
// keeps it only in the scenario's own record (Restore.Headline), so the
// restore figures of those records (flat[i] of r.Restores[i], in their
// flat form) are dropped here, once checked: a figure no measurement gives
// (negative, not finite) is refused as Check refuses it, not dropped
// unseen.
func upgradeSchema2(r *Results, flat []schema3Figures) error {
	for i := range r.Restores {
		rec := &r.Restores[i]
		if !rec.measuredByHeadline() {
			continue
		}
		for _, f := range flat[i].restoreFigures() {
			if err := plausible(f.name, *f.value, f.max); err != nil {
				return fmt.Errorf("restores[%d] (case %q repeat %d): schema 2: %w", i, rec.Case, rec.Repeat, err)
			}
			*f.value = 0
		}
	}
	r.SchemaVersion = 3
	return nil
}
