package gate

import (
	"bufio"
	"fmt"
	"os"
	"testing"
)

func TestZZScratch(t *testing.T) {
	f, err := os.Open(os.Getenv("SCRATCH"))
	if err != nil {
		t.Skip()
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	w := fixtureWhere(t)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		v := AnalyzeBashAt(line, DefaultPolicy(), w)
		m := "ro "
		if v.Modifies {
			m = "MOD"
		}
		g := ""
		if v.Git != nil {
			g = " [git " + v.Git.Command + "]"
		}
		fmt.Printf("%s %-60s | %s | %s%s\n", m, line, v.Part, v.Reason, g)
	}
}
