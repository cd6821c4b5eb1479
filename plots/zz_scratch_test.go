package plots

import "testing"

func TestScratchWrite(t *testing.T) {
	if _, err := WriteAll(sweep(), "/tmp/plotsout/sweep"); err != nil {
		t.Fatal(err)
	}
	r := sweep()
	// 24 cases: the sweep's 19 plus more
	if _, err := WriteAll(r, "/tmp/plotsout/sweep"); err != nil {
		t.Fatal(err)
	}
}
