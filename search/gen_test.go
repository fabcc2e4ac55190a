package search

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/planq-dev/planq/changelog"
)

// baseWords are frequent words of agent notes; the generator adds a long
// tail of identifier-like words.
var baseWords = strings.Fields(`the a to of and in for is with on that this it was we by from as
be not are at or but if when then so now all after before into out only also more
fix fixed add added remove removed update updated implement implemented refactor refactored test tests
testing run ran pass passes fail fails failing failed build builds error errors bug bugs issue
config configuration file files path paths directory package module function method type struct
interface field value values key keys name names list map slice string int bool pointer nil
server client request response handler middleware router route endpoint api http json yaml
token tokens jwt auth authentication session sessions user users password hash signature verify
database query queries table index migration schema transaction lock locks mutex goroutine channel
context cancel timeout deadline retry retries backoff cache caching memory leak performance slow fast
flaky race deadlock panic crash log logs logging trace metric metrics alert monitor dashboard
deploy deployment release version versions tag branch branches merge rebase commit commits push pull
review reviewed approve decision decided because instead chose option options alternative tradeoff
plan next steps todo done blocked pending progress milestone handoff continue later left open question
agent agents worktree repo repository state global scratch checkpoint restore promote learning insight
parse parser parsing format output input stream buffer read write append file-system disk sync
cli command flag flags help usage message messages warning clock time date timestamp zone
docker container image kubernetes pod service services network port socket dns proxy tls certificate
alpha beta gamma delta epsilon release-candidate upgrade downgrade dependency dependencies vendor
frontend backend component render template style layout button form validation validate invalid`)

var syllables = strings.Fields("ka lo mi nu pe ra si to ve xa zo bri cla dra fen gor hul jin kev lum nor pix quo rus tal")

// vocabulary returns n words: baseWords first, then generated ones.
func vocabulary(n int, r *rand.Rand) []string {
	words := append([]string(nil), baseWords...)
	seen := map[string]bool{}
	for _, w := range words {
		seen[w] = true
	}
	for len(words) < n {
		k := 2 + r.IntN(3)
		var b strings.Builder
		for range k {
			b.WriteString(syllables[r.IntN(len(syllables))])
		}
		if r.IntN(4) == 0 {
			b.WriteString(fmt.Sprint(r.IntN(100)))
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return words
}

// GenerateEntries returns n realistic changelog entries from 10 agents:
// a title heading, two to five sentences drawn from a Zipf-distributed
// vocabulary of 20,000 words, sometimes a list of next steps or a code span;
// decisions carry alternatives and a rationale. Bodies average ~400 bytes.
func GenerateEntries(n int, seed uint64) []changelog.Entry {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	words := vocabulary(20000, r)
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(words)-1))
	word := func() string { return words[zipf.Uint64()] }
	sentence := func(k int) string {
		ws := make([]string, k)
		for i := range ws {
			ws[i] = word()
		}
		ws[0] = strings.ToUpper(ws[0][:1]) + ws[0][1:]
		return strings.Join(ws, " ") + "."
	}
	types := []changelog.Type{changelog.TypeImplement, changelog.TypeImplement, changelog.TypeImplement, changelog.TypePlan,
		changelog.TypeLearning, changelog.TypeLearning, changelog.TypeDecision, changelog.TypeHandoff, changelog.TypeStart, changelog.TypeEnd}
	statuses := []changelog.Status{"", "", changelog.StatusCompleted, changelog.StatusInProgress, changelog.StatusBlocked, changelog.StatusPending}
	start := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	out := make([]changelog.Entry, n)
	for i := range out {
		e := changelog.Entry{
			Timestamp: start.Add(time.Duration(i) * 97 * time.Second),
			Agent:     fmt.Sprintf("agent-%d", r.IntN(10)),
			Type:      types[r.IntN(len(types))],
			Status:    statuses[r.IntN(len(statuses))],
		}
		var b strings.Builder
		fmt.Fprintf(&b, "## %s %s %s\n\n", strings.ToUpper(word()[:1]), word(), word())
		for range 2 + r.IntN(4) {
			b.WriteString(sentence(6 + r.IntN(10)))
			b.WriteByte(' ')
		}
		if r.IntN(3) == 0 {
			fmt.Fprintf(&b, "See `%s.go` and `%s()`.", word(), word())
		}
		if r.IntN(4) == 0 || e.Type == changelog.TypeHandoff {
			b.WriteString("\n\nNext steps:\n\n")
			for range 1 + r.IntN(3) {
				fmt.Fprintf(&b, "- %s\n", sentence(4+r.IntN(5)))
			}
		}
		e.Body = b.String()
		if e.Type == changelog.TypeDecision {
			e.Decision = sentence(4)
			e.Alternatives = []string{word(), word() + " " + word()}
			e.Rationale = sentence(8)
		}
		if e.Type == changelog.TypeHandoff {
			e.To = fmt.Sprintf("agent-%d", r.IntN(10))
		}
		out[i] = e
	}
	return out
}

// Generate returns GenerateEntries(n, seed) as documents, alternating
// between the "agent" and "global" sources.
func Generate(n int, seed uint64) []Doc {
	es := GenerateEntries(n, seed)
	docs := make([]Doc, n)
	for i, e := range es {
		e.ID = changelog.ComputeID(e)
		e.ID = fmt.Sprintf("%s-%d", e.ID, i) // unique even on a 32-bit hash collision
		src := "agent"
		if i%2 == 1 {
			src = "global"
		}
		docs[i] = FromEntry(e, src)
	}
	return docs
}
