package plots

import (
	"errors"
	"testing"

	"github.com/restorebench/restorebench/runs"
)

// TestLookupsByInstanceDrawsEachAnsweringInstance: the first kill of each
// failover case with a query load gets a line per instance that answered,
// with the second's answers at the second's end, the last (partial) second
// left out; results without such
// kills have no chart.
func TestLookupsByInstanceDrawsEachAnsweringInstance(t *testing.T) {
	if _, err := LookupsByInstance(&runs.Results{Restores: []runs.Restore{{Case: "cold", Queries: &runs.QueryFigures{Series: []runs.QuerySecond{{T: 0}}}}}}); !errors.Is(err, ErrNotApplicable) {
		t.Fatalf("without failover kills: %v", err)
	}
	series := []runs.QuerySecond{{T: 0, ByInstance: map[string]int64{"i1": 40, "i2": 60}}, {T: 1}, {T: 2, ByInstance: map[string]int64{"i2": 100}},
		{T: 3, ByInstance: map[string]int64{"i2": 30}}} // the last second, cut short when the lookups stopped
	kill := func(k int) runs.Restore {
		return runs.Restore{Case: "standby-stale", Failover: &runs.FailoverRecord{Kill: k},
			Queries: &runs.QueryFigures{Rate: 100, Series: series, Outage: &runs.ReadOutage{KillSeconds: 1}}}
	}
	p, err := LookupsByInstance(&runs.Results{Restores: []runs.Restore{kill(1), kill(2)}})
	if err != nil || p == nil {
		t.Fatalf("chart %v, %v", p, err)
	}
	if got := instancesOf(series); len(got) != 2 || got[0] != "i1" || got[1] != "i2" {
		t.Fatalf("instances %v", got)
	}
	xys := instanceXYs(series, "i2")
	if len(xys) != 4 || xys[1].Y != 60 || xys[2].Y != 0 || xys[3].X != 3 || xys[3].Y != 100 {
		t.Fatalf("i2's points %v (the partial last second left out)", xys)
	}
	bare := kill(1)
	bare.Queries = &runs.QueryFigures{Series: []runs.QuerySecond{{T: 0, Answered: 5}}, Outage: &runs.ReadOutage{}}
	if _, err := LookupsByInstance(&runs.Results{Restores: []runs.Restore{bare}}); !errors.Is(err, ErrNotApplicable) {
		t.Fatalf("a series without answers by instance: %v", err)
	}
	other := kill(1)
	other.Case = "no-standby"
	if got := firstQueryKills([]runs.Restore{kill(1), kill(2), other}); len(got) != 2 || got[0].Failover.Kill != 1 || got[1].Case != "no-standby" {
		t.Fatalf("drawn kills %+v, want each case's first", got)
	}
}
