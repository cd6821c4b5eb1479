package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/capacity"
)

// An audit.json written before the audit's times were capacity.Figures
// (testdata/before-figures-*.json, written by that code: one with every
// time and interval, one whose losses have no time and no detection)
// loads into Figures with the same values and intervals, in seconds; a
// null time stays nil; and written again it says the same, field for field.
func TestLoadAuditWrittenBeforeFigures(t *testing.T) {
	for _, file := range []string{"testdata/before-figures-timed.json", "testdata/before-figures-untimed.json"} {
		r, err := Load(file)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var raw struct {
			Handover, Closing spanJSON
			Instances         []struct {
				Fails       *failureTimes `json:"if_it_fails"`
				WithState   *failureTimes `json:"if_restarted_with_state"`
				OnEmptyDisk *failureTimes `json:"if_restarted_on_empty_disk"`
			}
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatal(err)
		}
		sameSpan(t, file+" handover", &r.Handover, &raw.Handover)
		sameSpan(t, file+" closing", &r.Closing, &raw.Closing)
		var timed, untimed int
		for i, in := range r.Instances {
			ri := raw.Instances[i]
			for j, f := range []*Failure{in.IfItFails, in.IfRestartedWithState, in.IfRestartedEmpty} {
				want, at := []*failureTimes{ri.Fails, ri.WithState, ri.OnEmptyDisk}[j], fmt.Sprintf("%s %s answer %d", file, in.ProcessID, j)
				sameSpan(t, at+" detection", f.Detection, want.Detection)
				sameSpan(t, at+" restore", f.Restore, rawSpan(want.RestoreSeconds, want.RestoreSecondsLo, want.RestoreSecondsHi))
				sameSpan(t, at+" total", f.Total, rawSpan(want.TotalSeconds, want.TotalSecondsLo, want.TotalSecondsHi))
				if f.Total == nil {
					untimed++
				} else {
					timed++
				}
			}
		}
		if strings.Contains(file, "-timed") && (timed == 0 || untimed > 0) || strings.Contains(file, "untimed") && untimed == 0 {
			t.Errorf("%s: %d timed and %d untimed answers: the fixture does not cover what it is for", file, timed, untimed)
		}
		var again bytes.Buffer
		if err := WriteJSON(&again, r); err != nil {
			t.Fatal(err)
		}
		var before, after any
		if err := json.Unmarshal(data, &before); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(again.Bytes(), &after); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(before, after) {
			t.Errorf("%s written again differs from the file:\n%s", file, again.String())
		}
	}
}

// rawSpan is three fields of a file as the span they are, nil when all
// are null.
func rawSpan(v, lo, hi *float64) *spanJSON {
	if v == nil && lo == nil && hi == nil {
		return nil
	}
	return &spanJSON{Value: *v, Lo: *lo, Hi: *hi}
}

// sameSpan fails unless got, a figure in seconds, holds want's value and
// interval, or both are nil.
func sameSpan(t *testing.T, what string, got *capacity.Figure, want *spanJSON) {
	t.Helper()
	switch {
	case got == nil && want == nil:
	case got == nil || want == nil:
		t.Errorf("%s: %+v, the file has %+v", what, got, want)
	case got.Unit != capacity.UnitSeconds || got.Value != want.Value || got.Lo != want.Lo || got.Hi != want.Hi:
		t.Errorf("%s: %v %s (%v-%v), the file has %+v", what, got.Value, got.Unit, got.Lo, got.Hi, *want)
	}
}

// A figure's JSON shapes are written and read back whole, and a time
// given without both ends of its interval (an edited file) is refused
// rather than read as a time with a made-up interval.
func TestFailureFiguresJSON(t *testing.T) {
	d := capacity.SecondsFigure(11, 8, 14)
	restore := capacity.SecondsFigure(2, 1.5, 3)
	total := d.Add(restore)
	in := Failure{Restored: []string{"0_1"}, Detection: &d, Restore: &restore, Total: &total, Note: "a <note> & more"}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"taken_over_warm":null,"restored":["0_1"],"restore_records":0,"restore_bytes":0,"largest_thread_restore_bytes":0,` +
		`"detection":{"seconds":11,"seconds_lo":8,"seconds_hi":14},"restore_seconds":2,"restore_seconds_lo":1.5,"restore_seconds_hi":3,` +
		`"total_seconds":13,"total_seconds_lo":9.5,"total_seconds_hi":17,"note":"a \u003cnote\u003e \u0026 more"}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	var out Failure
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out.Restored, in.Restored) || out.Note != in.Note || *out.Detection != d || *out.Restore != restore || *out.Total != total {
		t.Errorf("read back %+v", out)
	}
	var none Failure
	if err := json.Unmarshal([]byte(`{"detection": null, "restore_seconds": null}`), &none); err != nil || none.Detection != nil ||
		none.Restore != nil || none.Total != nil {
		t.Errorf("nulls: %+v, %v", none, err)
	}
	if err := json.Unmarshal([]byte(`{"total_seconds": 30, "total_seconds_hi": 40}`), &none); err == nil ||
		!strings.Contains(err.Error(), "total_seconds_lo") {
		t.Errorf("a total without its low end: %v", err)
	}
}
