package jj

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// GraphRow is one line of jj's graph drawing of a log listing: its graph
// characters and, on a node line, the change drawn there.
type GraphRow struct {
	// Graph is the line's graph characters as jj drew them ("│ ○", "├─╮",
	// "~"), in the user's graph style, trailing spaces trimmed.
	Graph string
	// Change is the change on this line; nil on a line of edges only.
	Change *Change
	// Elided marks the line jj draws for revisions the revset left out
	// ("~  (elided revisions)"); Graph then holds just its graph characters.
	Elided bool
	// Stat is the change's diff stat, from LogGraphWithStats; nil otherwise.
	Stat *CompactStat
}

// graphMark starts the template output on a node line; jj never draws it.
const graphMark = "\x1fPLANQ-NODE\x1f"

// elidedText is what jj writes after the graph of an elided-revisions line.
const elidedText = "(elided revisions)"

// LogGraph lists revset newest first (jj's order) as jj draws its graph,
// skipping the first skip changes and returning the lines of at most limit
// changes (limit <= 0: all): each change's node line and the edge lines
// below it. more says whether changes follow. It runs one jj process, with
// --limit skip+limit+1, so a page deep into a long history costs more than
// the first.
func (c *Client) LogGraph(ctx context.Context, revset string, skip, limit int) (rows []GraphRow, more bool, err error) {
	return c.logGraph(ctx, revset, skip, limit, false)
}

// LogGraphWithStats is LogGraph with each change's diff stat (GraphRow.Stat)
// from the same jj process: for a first page, one process instead of
// LogGraph's and Stats'. jj computes the stat of every change it lists,
// the skipped ones too, so a page deep into a history is cheaper with
// LogGraph and Stats of its own changes.
func (c *Client) LogGraphWithStats(ctx context.Context, revset string, skip, limit int) (rows []GraphRow, more bool, err error) {
	return c.logGraph(ctx, revset, skip, limit, true)
}

func (c *Client) logGraph(ctx context.Context, revset string, skip, limit int, stats bool) (rows []GraphRow, more bool, err error) {
	if skip < 0 {
		return nil, false, fmt.Errorf("log graph: skip %d is negative", skip)
	}
	node := changeTemplate()
	if stats {
		node = `"[" ++ ` + changeJSONOf("self") + ` ++ "," ++ ` + statObject + ` ++ "]\n"`
	}
	args := []string{"log", "-r", revset, "-T", `"` + graphMark + `" ++ ` + node,
		"--config=ui.log-word-wrap=false"}
	if limit > 0 {
		args = append(args, "--limit", strconv.Itoa(skip+limit+1))
	}
	out, err := c.run(ctx, false, args...)
	if err != nil {
		return nil, false, err
	}
	rows, nodes, err := parseGraph(out, skip, limit, stats)
	if err != nil {
		return nil, false, err
	}
	return rows, limit > 0 && nodes > skip+limit, nil
}

// parseGraph splits jj log's graph output into rows, keeping those of the
// nodes from skip up to skip+limit (limit <= 0: all), and counts the nodes.
func parseGraph(out []byte, skip, limit int, stats bool) (rows []GraphRow, nodes int, err error) {
	keep := false
	for _, line := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
		graph, rest, isNode := bytes.Cut(line, []byte(graphMark))
		if isNode {
			keep = nodes >= skip && (limit <= 0 || nodes < skip+limit)
			nodes++
		}
		if !keep {
			continue
		}
		row := GraphRow{Graph: strings.TrimRight(string(graph), " ")}
		if isNode {
			var ch Change
			var err error
			if stats {
				row.Stat = new(CompactStat)
				err = json.Unmarshal(bytes.TrimSpace(rest), &[]any{&ch, row.Stat})
			} else {
				err = json.Unmarshal(bytes.TrimSpace(rest), &ch)
			}
			if err != nil {
				return nil, 0, fmt.Errorf("jj log: unexpected output %q: %w", short(string(rest), 200), err)
			}
			ch.Description = strings.TrimSuffix(ch.Description, "\n")
			row.Change = &ch
		} else if g, ok := strings.CutSuffix(row.Graph, elidedText); ok {
			row.Graph, row.Elided = strings.TrimRight(g, " "), true
		}
		rows = append(rows, row)
	}
	return rows, nodes, nil
}

// CompactStat is a change's diff stat in numbers.
type CompactStat struct {
	Files      int `json:"files"`      // files changed
	Insertions int `json:"insertions"` // lines added
	Deletions  int `json:"deletions"`  // lines removed
}

// ParseStat reads jj's diff stat summary line ("2 files changed, 5
// insertions(+), 1 deletion(-)", as DiffStat's last line says it); parts it
// does not find are 0.
func ParseStat(s string) CompactStat {
	var st CompactStat
	for _, part := range strings.Split(s, ",") {
		var n int
		var word string
		if _, err := fmt.Sscanf(strings.TrimSpace(part), "%d %s", &n, &word); err != nil {
			continue
		}
		switch {
		case strings.HasPrefix(word, "file"):
			st.Files = n
		case strings.HasPrefix(word, "insertion"):
			st.Insertions = n
		case strings.HasPrefix(word, "deletion"):
			st.Deletions = n
		}
	}
	return st
}

// String is the stat in short: "2 files +5 -1", "-" for no files.
func (st CompactStat) String() string {
	if st.Files == 0 {
		return "-"
	}
	unit := "files"
	if st.Files == 1 {
		unit = "file"
	}
	return fmt.Sprintf("%d %s +%d -%d", st.Files, unit, st.Insertions, st.Deletions)
}

// statFields are the template of a diff stat's JSON fields (CompactStat).
const statFields = `"\"files\":" ++ json(self.diff().files().len()) ++
  ",\"insertions\":" ++ self.diff().stat(80).total_added() ++
  ",\"deletions\":" ++ self.diff().stat(80).total_removed()`

// statObject renders a commit's diff stat as a JSON object.
const statObject = `"{" ++ ` + statFields + ` ++ "}"`

// statTemplate renders a commit's id and diff stat as a JSON object a line.
const statTemplate = `"{" ++
  "\"commit_id\":" ++ json(commit_id) ++ "," ++ ` + statFields + ` ++
  "}\n"`

// Stats returns the diff stats of the changes of revset, by commit id, in
// one jj process that leaves the working copy alone (it reads the commits
// as the last operation recorded them): for a page of LogGraph rows, pass
// their commit ids joined by "|".
func (c *Client) Stats(ctx context.Context, revset string) (map[string]CompactStat, error) {
	out, err := c.run(ctx, false, "log", "--ignore-working-copy", "--no-graph", "-r", revset, "-T", statTemplate)
	if err != nil {
		return nil, err
	}
	type stat struct {
		CommitID string `json:"commit_id"`
		CompactStat
	}
	list, err := parseLines[stat](out, "jj diff stat")
	if err != nil {
		return nil, err
	}
	m := make(map[string]CompactStat, len(list))
	for _, s := range list {
		m[s.CommitID] = s.CompactStat
	}
	return m, nil
}
