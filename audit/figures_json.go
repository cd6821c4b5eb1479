package audit

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/restorebench/restorebench/capacity"
)

// The audit's times are capacity.Figures in memory; audit.json writes them
// as it always has (field names and shapes of restorebench.audit/v1), so
// that files written before still load: a time in an object
// {"seconds", "seconds_lo", "seconds_hi"} (the handover, the closing, a
// failure's detection), a failure's restore and total as three flat
// fields each. What a Figure holds beyond its value and interval (how far
// it extrapolates) is not written.

// spanJSON is a time with its interval as one JSON object.
type spanJSON struct {
	Value float64 `json:"seconds"`
	Lo    float64 `json:"seconds_lo"`
	Hi    float64 `json:"seconds_hi"`
}

func spanOf(f capacity.Figure) spanJSON { return spanJSON{f.Value, f.Lo, f.Hi} }

func (s spanJSON) figure() capacity.Figure { return capacity.SecondsFigure(s.Value, s.Lo, s.Hi) }

// optSpanOf is f's object, nil for nil.
func optSpanOf(f *capacity.Figure) *spanJSON {
	if f == nil {
		return nil
	}
	s := spanOf(*f)
	return &s
}

// optFigure is s's figure, nil for nil.
func optFigure(s *spanJSON) *capacity.Figure {
	if s == nil {
		return nil
	}
	f := s.figure()
	return &f
}

// reportTimes are a Report's figures as audit.json writes them.
type reportTimes struct {
	Handover spanJSON `json:"handover"`
	Closing  spanJSON `json:"closing"`
}

// reportFields is Report without its JSON methods.
type reportFields Report

// reportJSON is a Report as audit.json holds it.
type reportJSON struct {
	*reportFields
	reportTimes
}

// figuresJSON is r's figures as audit.json writes them (checkFigures reads them).
func (r Report) figuresJSON() any {
	return reportTimes{Handover: spanOf(r.Handover), Closing: spanOf(r.Closing)}
}

// MarshalJSON writes r with its figures in audit.json's shapes.
func (r Report) MarshalJSON() ([]byte, error) {
	return marshalPlain(reportJSON{(*reportFields)(&r), r.figuresJSON().(reportTimes)})
}

// UnmarshalJSON reads r and its figures from audit.json's shapes.
func (r *Report) UnmarshalJSON(b []byte) error {
	w := reportJSON{reportFields: (*reportFields)(r)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	r.Handover, r.Closing = w.reportTimes.Handover.figure(), w.reportTimes.Closing.figure()
	return nil
}

// failureTimes are a Failure's figures as audit.json writes them: null
// where the figure is nil.
type failureTimes struct {
	Detection        *spanJSON `json:"detection"`
	RestoreSeconds   *float64  `json:"restore_seconds"`
	RestoreSecondsLo *float64  `json:"restore_seconds_lo"`
	RestoreSecondsHi *float64  `json:"restore_seconds_hi"`
	TotalSeconds     *float64  `json:"total_seconds"`
	TotalSecondsLo   *float64  `json:"total_seconds_lo"`
	TotalSecondsHi   *float64  `json:"total_seconds_hi"`
}

// failureFields is Failure without its JSON methods.
type failureFields Failure

// failureJSON is a Failure as audit.json holds it; its Note, shadowing
// failureFields', keeps "note" last, where it has always been.
type failureJSON struct {
	*failureFields
	failureTimes
	Note string `json:"note,omitempty"`
}

// figuresJSON is f's figures as audit.json writes them (checkFigures reads them).
func (f Failure) figuresJSON() any {
	t := failureTimes{Detection: optSpanOf(f.Detection)}
	t.RestoreSeconds, t.RestoreSecondsLo, t.RestoreSecondsHi = flat(f.Restore)
	t.TotalSeconds, t.TotalSecondsLo, t.TotalSecondsHi = flat(f.Total)
	return t
}

// MarshalJSON writes f with its figures in audit.json's shapes.
func (f Failure) MarshalJSON() ([]byte, error) {
	return marshalPlain(failureJSON{(*failureFields)(&f), f.figuresJSON().(failureTimes), f.Note})
}

// UnmarshalJSON reads f and its figures from audit.json's shapes,
// refusing a time given without its interval's ends (or ends without it).
func (f *Failure) UnmarshalJSON(b []byte) error {
	w := failureJSON{failureFields: (*failureFields)(f)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	t := w.failureTimes
	var err error
	f.Note, f.Detection = w.Note, optFigure(t.Detection)
	if f.Restore, err = unflat("restore_seconds", t.RestoreSeconds, t.RestoreSecondsLo, t.RestoreSecondsHi); err != nil {
		return err
	}
	f.Total, err = unflat("total_seconds", t.TotalSeconds, t.TotalSecondsLo, t.TotalSecondsHi)
	return err
}

// flat is f as three fields, value and interval; all nil for nil.
func flat(f *capacity.Figure) (v, lo, hi *float64) {
	if f == nil {
		return nil, nil, nil
	}
	return &f.Value, &f.Lo, &f.Hi
}

// unflat is the figure of three fields named name, name_lo and name_hi:
// nil when none is set, an error when only some are.
func unflat(name string, v, lo, hi *float64) (*capacity.Figure, error) {
	switch {
	case v == nil && lo == nil && hi == nil:
		return nil, nil
	case v == nil || lo == nil || hi == nil:
		return nil, fmt.Errorf("%[1]s, %[1]s_lo and %[1]s_hi are given together or not at all", name)
	}
	f := capacity.SecondsFigure(*v, *lo, *hi)
	return &f, nil
}

// marshalPlain is v's JSON without HTML escaping: the encoder that
// writes the document escapes it once, as it did before these types had
// JSON methods.
func marshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
