package metrics

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// dashboardFile is the Grafana dashboard of a run in progress.
const dashboardFile = "../deploy/grafana/restorebench.json"

// TestGrafanaDashboardQueriesOnlyRegisteredMetrics: the dashboard is valid
// JSON, every panel queries something, ids are unique, it shows what a run
// in progress is asked about, and every metric name it queries (panels and
// variables) is one this package registers.
func TestGrafanaDashboardQueriesOnlyRegisteredMetrics(t *testing.T) {
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string `json:"title"`
		UID    string `json:"uid"`
		Panels []struct {
			ID      int    `json:"id"`
			Type    string `json:"type"`
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name       string `json:"name"`
				Definition string `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	if dash.Title == "" || dash.UID == "" {
		t.Errorf("no title or uid")
	}
	var exprs []string
	ids := map[int]bool{}
	var titles []string
	for _, p := range dash.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d twice", p.ID)
		}
		ids[p.ID] = true
		if p.Type == "row" {
			continue
		}
		titles = append(titles, strings.ToLower(p.Title))
		if len(p.Targets) == 0 {
			t.Errorf("panel %q queries nothing", p.Title)
		}
		for _, tg := range p.Targets {
			if strings.Count(tg.Expr, "(") != strings.Count(tg.Expr, ")") || strings.Count(tg.Expr, "{") != strings.Count(tg.Expr, "}") {
				t.Errorf("panel %q: unbalanced query %q", p.Title, tg.Expr)
			}
			exprs = append(exprs, tg.Expr)
		}
	}
	for _, v := range dash.Templating.List {
		exprs = append(exprs, v.Definition)
	}
	for _, want := range []string{"phase", "case and repeat", "restore progress", "restore rate", "remaining records", "fill progress", "agents up", "clock offsets"} {
		found := false
		for _, title := range titles {
			found = found || title == want
		}
		if !found {
			t.Errorf("no panel %q among %q", want, titles)
		}
	}
	names := registered(t)
	queried := map[string]bool{}
	for _, e := range exprs {
		for _, name := range regexp.MustCompile(`\brestorebench_[a-zA-Z0-9_:]+`).FindAllString(e, -1) {
			queried[name] = true
			if _, ok := names[name]; !ok {
				t.Errorf("the dashboard queries %s, which the package does not register (in %q)", name, e)
			}
		}
	}
	if len(queried) < 10 {
		t.Errorf("the dashboard queries only %d metrics", len(queried))
	}
}
