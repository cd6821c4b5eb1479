package runs

import (
	"strings"
	"testing"
)

// TestChangelogReadNote checks which reads are said aloud: read_uncommitted
// over transactional batches, naming the aborted transactions when there
// were some; never a read_committed one or one without markers.
func TestChangelogReadNote(t *testing.T) {
	cases := []struct {
		read ChangelogRead
		want string // "" for no note
	}{
		{ChangelogRead{IsolationLevel: "read_uncommitted", Markers: 10, AbortMarkers: 4, TransactionalRecords: 900}, "4 of them end aborted transactions, whose records were restored as if committed"},
		{ChangelogRead{IsolationLevel: "read_uncommitted", Markers: 10, TransactionalRecords: 900}, "none of them aborts"},
		{ChangelogRead{IsolationLevel: "read_committed", Markers: 10, AbortMarkers: 4, TransactionalRecords: 500}, ""},
		{ChangelogRead{IsolationLevel: "read_uncommitted"}, ""},
	}
	for _, c := range cases {
		c.read.SetNote()
		switch {
		case c.want == "" && c.read.Note != "":
			t.Errorf("%+v: noted %q, want no note", c.read, c.read.Note)
		case c.want != "" && (!strings.Contains(c.read.Note, c.want) || !strings.Contains(c.read.Note, "exactly_once_v2")):
			t.Errorf("%+v: noted %q, want it to say %q and name exactly_once_v2", c.read, c.read.Note, c.want)
		}
	}
}

// TestChangelogReadCheck checks that a record's read is refused when it is
// not one a restore makes.
func TestChangelogReadCheck(t *testing.T) {
	for _, c := range []struct {
		read ChangelogRead
		want string
	}{
		{ChangelogRead{IsolationLevel: "read_dirty"}, "isolation_level"},
		{ChangelogRead{IsolationLevel: "read_committed", Markers: -1}, "read.markers"},
		{ChangelogRead{IsolationLevel: "read_committed", Markers: 1, AbortMarkers: 2}, "exceeds"},
	} {
		if err := c.read.check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want an error naming %s", c.read, err, c.want)
		}
	}
	ok := ChangelogRead{IsolationLevel: "read_committed", Offsets: 10, Markers: 2, AbortMarkers: 1}
	if err := ok.check(); err != nil {
		t.Errorf("%+v: %v", ok, err)
	}
}
