package profiles

import (
	"strings"
	"testing"

	"github.com/restorebench/restorebench/loadgen"
)

// TestTransactionalFillSettings checks that a profile's fill.transactional
// reaches the fill's spec with its defaults (1000 records per transaction,
// no aborts) or the settings written.
func TestTransactionalFillSettings(t *testing.T) {
	p, err := Parse([]byte("fill:\n  records: 5000\n  transactional: true\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Spec; !s.Transactional || s.TransactionRecords != loadgen.DefaultTransactionRecords || s.AbortRatio != 0 {
		t.Fatalf("spec %+v, want transactional with the defaults", s)
	}
	p, err = Parse([]byte("fill:\n  records: 5000\n  transactional: true\n  transaction_records: 250\n  abort_ratio: 0.1\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Spec; !s.Transactional || s.TransactionRecords != 250 || s.AbortRatio != 0.1 {
		t.Fatalf("spec %+v, want 250 records per transaction, 0.1 aborted", s)
	}
	plain, err := Parse([]byte("fill:\n  records: 5000\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s := plain.Spec; s.Transactional || s.TransactionRecords != 0 || s.AbortRatio != 0 {
		t.Fatalf("plain spec %+v carries transactional settings", s)
	}
}

// TestTransactionalFillErrorsNameFieldAndLine checks that bad transactional
// settings, and scenarios that cannot run on a transactional fill, are
// refused naming the field and its line.
func TestTransactionalFillErrorsNameFieldAndLine(t *testing.T) {
	const fill = "fill:\n  records: 5000\n  transactional: true\n"
	cases := []struct{ yaml, want string }{
		{fill + "  abort_ratio: 0.95\n", "line 4: fill.abort_ratio: 0.95 must be in [0, 0.9]"},
		{fill + "  abort_ratio: -0.1\n", "line 4: fill.abort_ratio: -0.1 must be in [0, 0.9]"},
		{fill + "  transaction_records: 0\n", "line 4: fill.transaction_records: 0 must be positive"},
		{fill + "  transaction_records: 2000000\n", "line 4: fill.transaction_records: 2000000 is over 1000000"},
		{fill + "  transaction_records: many\n", `line 4: fill.transaction_records: "many" is not an integer`},
		{"fill:\n  records: 5000\n  abort_ratio: 0.1\n", "line 3: fill.abort_ratio: is set only with transactional: true"},
		{"fill:\n  records: 5000\n  transaction_records: 10\n", "line 3: fill.transaction_records: is set only with transactional: true"},
		{fill + "  transactionl: true\n", "line 4: fill.transactionl: unknown field (did you mean transactional?)"},
		{fill + "cases:\n  - name: w\n    scenario: warm\n", "line 3: fill.transactional: case w runs scenario warm, which does not run on a transactional fill yet"},
		{fill + "cases:\n  - name: s\n    scenario: standby\n", "line 3: fill.transactional: case s runs scenario standby"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.yaml), "test.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "profile test.yaml: ") {
			t.Errorf("%q: error %v, want one containing %q", c.yaml, err, c.want)
		}
	}
}
