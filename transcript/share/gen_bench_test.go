//go:build unix

package share

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

// A generator of Claude Code-like transcripts for the scale benchmark:
// JSON Lines with the metadata every line of a real one carries (uuids,
// the parent's uuid, session id, cwd, version, timestamps), prompts,
// assistant text, tool calls (Read, Edit, Bash, Grep) and their results —
// source files with line numbers, test output — with usage counts and
// message ids. Real transcripts compress about 4 to 8 times with zlib;
// these do too (the benchmark reports the ratio it got), so that what a
// push sends is measured against realistic data, not padding.

var genWords = strings.Fields(`the a to of and in is it that for on with this as be are was by at from or
an not we can will should would could have has had do does did but if then so because when where which
while function method handler request response server client token bucket rate limit limiter redis
connection pool tenant config file test error value key cache lock timeout retry deploy release branch
merge commit review middleware session user database query index schema migration field struct type
interface package import return variable constant parameter argument slice map channel goroutine mutex
context deadline cancel metrics counter histogram gauge dashboard alert log trace span http grpc json
yaml parse encode decode read write open close flush sync buffer stream chunk batch queue worker job
schedule cron backoff jitter window sliding fixed refill capacity burst quota header status code body
route path endpoint auth jwt oauth scope claim secret env variable default option flag command output`)

var genIdents = strings.Fields(`Limiter Bucket Tokens Refill Allow Reserve Wait Handler ServeHTTP Config
Options Store Client Pool Conn Get Set Del Incr Expire TTL Now Since Duration Second Millisecond ctx err
req resp w r key tenant limit burst rate window count n i j ok val res cfg opts log metrics counter mu
sync Mutex RWMutex Lock Unlock Load Store Add Swap NewLimiter NewStore NewClient Middleware Next Chain
Parse Validate Encode Decode Marshal Unmarshal Write Read Close Flush Reset String Error Errorf Wrap`)

var goKeywords = []string{"func", "return", "if", "for", "range", "var", "const", "type", "struct", "go", "defer", "switch", "case", "else", "nil", ":=", "=", "!=", "==", "&&", "||", "{", "}", "(", ")", ".", ","}

// genPool holds the generated project the sessions read and run: source
// files (already JSON-escaped, with Read's line numbers) and test output.
type genPool struct {
	files   []string // JSON string literals of Read results
	paths   []string
	outputs []string // JSON string literals of Bash results
}

func newGenPool(rng *rand.Rand) *genPool {
	p := &genPool{}
	dirs := []string{"internal/ratelimit", "internal/server", "internal/store", "cmd/api", "pkg/middleware", "internal/config"}
	for i := range 240 {
		var b strings.Builder
		fmt.Fprintf(&b, "package %s\n\n", strings.ToLower(genIdents[rng.IntN(len(genIdents))]))
		lines := 40 + rng.IntN(600)
		indent := 0
		for l := range lines {
			fmt.Fprintf(&b, "%6d\t", l+1)
			b.WriteString(strings.Repeat("\t", indent))
			switch k := rng.IntN(10); {
			case k == 0:
				b.WriteString("// ")
				for range 4 + rng.IntN(10) {
					b.WriteString(genWords[rng.IntN(len(genWords))])
					b.WriteByte(' ')
				}
			case k < 2 && indent < 3:
				fmt.Fprintf(&b, "func (%s *%s) %s(%s %s) error {", strings.ToLower(genIdents[rng.IntN(len(genIdents))][:1]),
					genIdents[rng.IntN(len(genIdents))], genIdents[rng.IntN(len(genIdents))], genIdents[rng.IntN(len(genIdents))], genIdents[rng.IntN(len(genIdents))])
				indent++
			case k < 3 && indent > 0:
				b.WriteString("}")
				indent--
			default:
				for range 3 + rng.IntN(8) {
					if rng.IntN(3) == 0 {
						b.WriteString(goKeywords[rng.IntN(len(goKeywords))])
					} else {
						b.WriteString(genIdents[rng.IntN(len(genIdents))])
					}
					b.WriteByte(' ')
				}
			}
			b.WriteByte('\n')
		}
		p.files = append(p.files, jsonString(b.String()))
		p.paths = append(p.paths, fmt.Sprintf("%s/%s_%d.go", dirs[rng.IntN(len(dirs))], strings.ToLower(genIdents[rng.IntN(len(genIdents))]), i))
	}
	for range 60 {
		var b strings.Builder
		for range 5 + rng.IntN(120) {
			name := "Test" + genIdents[rng.IntN(len(genIdents))] + genIdents[rng.IntN(len(genIdents))]
			fmt.Fprintf(&b, "=== RUN   %s\n--- PASS: %s (%d.%02ds)\n", name, name, rng.IntN(3), rng.IntN(100))
		}
		fmt.Fprintf(&b, "PASS\nok  \tgithub.com/acme/shop/%s\t%d.%03ds\n", dirs[rng.IntN(len(dirs))], rng.IntN(5), rng.IntN(1000))
		p.outputs = append(p.outputs, jsonString(b.String()))
	}
	return p
}

func jsonString(s string) string {
	data, _ := json.Marshal(s)
	return string(data)
}

const idChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

func randID(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = idChars[rng.IntN(len(idChars))]
	}
	return string(b)
}

func randUUID(rng *rand.Rand) string {
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", rng.Uint32(), rng.Uint32()&0xffff, rng.Uint32()&0xffff, rng.Uint32()&0xffff, rng.Uint64()&0xffffffffffff)
}

func (p *genPool) sentence(rng *rand.Rand, words int) string {
	var b strings.Builder
	for i := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(genWords[rng.IntN(len(genWords))])
	}
	b.WriteByte('.')
	return b.String()
}

// writeTranscript writes a session's transcript of at least size bytes
// to w, and returns how many it wrote.
func (p *genPool) writeTranscript(w io.Writer, rng *rand.Rand, size int64, sessionID, cwd string, start time.Time) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	var written int64
	parent := "null"
	ts := start
	meta := func(typ string) string {
		uuid := randUUID(rng)
		ts = ts.Add(time.Duration(200+rng.IntN(20000)) * time.Millisecond)
		s := fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":%q,"sessionId":%q,"version":"2.0.14","gitBranch":"main","type":%q,`,
			parent, cwd, sessionID, typ)
		parent = `"` + uuid + `"`
		return s + `"uuid":"` + uuid + `","timestamp":"` + ts.UTC().Format("2006-01-02T15:04:05.000Z") + `",`
	}
	usage := func() string {
		return fmt.Sprintf(`"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d,"service_tier":"standard"}`,
			rng.IntN(10), rng.IntN(5000), 10000+rng.IntN(90000), rng.IntN(2000))
	}
	emit := func(s string) error {
		n, err := bw.WriteString(s)
		written += int64(n)
		return err
	}
	for written < size {
		var line string
		switch k := rng.IntN(20); {
		case k == 0:
			line = meta("user") + `"message":{"role":"user","content":` + jsonString(p.sentence(rng, 10+rng.IntN(60))) + `}}` + "\n"
		case k < 6:
			line = meta("assistant") + fmt.Sprintf(`"message":{"id":"msg_01%s","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":%s}],"stop_reason":null,%s},"requestId":"req_011C%s"}`,
				randID(rng, 22), jsonString(p.sentence(rng, 8+rng.IntN(120))), usage(), randID(rng, 20)) + "\n"
		default:
			id := "toolu_01" + randID(rng, 22)
			var input, result string
			switch t := rng.IntN(10); {
			case t < 5:
				f := rng.IntN(len(p.files))
				input = fmt.Sprintf(`{"type":"tool_use","id":%q,"name":"Read","input":{"file_path":%q}}`, id, cwd+"/"+p.paths[f])
				result = p.files[f]
			case t < 7:
				f := rng.IntN(len(p.paths))
				input = fmt.Sprintf(`{"type":"tool_use","id":%q,"name":"Edit","input":{"file_path":%q,"old_string":%s,"new_string":%s}}`, id, cwd+"/"+p.paths[f],
					jsonString(p.sentence(rng, 12)), jsonString(p.sentence(rng, 14)))
				result = jsonString("The file " + cwd + "/" + p.paths[f] + " has been updated.")
			case t < 9:
				input = fmt.Sprintf(`{"type":"tool_use","id":%q,"name":"Bash","input":{"command":"go test ./...","description":"Run the tests"}}`, id)
				result = p.outputs[rng.IntN(len(p.outputs))]
			default:
				w := genIdents[rng.IntN(len(genIdents))]
				input = fmt.Sprintf(`{"type":"tool_use","id":%q,"name":"Grep","input":{"pattern":%q}}`, id, w)
				var b strings.Builder
				for range 1 + rng.IntN(20) {
					fmt.Fprintf(&b, "%s:%d: %s %s\n", p.paths[rng.IntN(len(p.paths))], 1+rng.IntN(400), w, p.sentence(rng, 5))
				}
				result = jsonString(b.String())
			}
			line = meta("assistant") + fmt.Sprintf(`"message":{"id":"msg_01%s","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[%s],"stop_reason":null,%s},"requestId":"req_011C%s"}`,
				randID(rng, 22), input, usage(), randID(rng, 20)) + "\n"
			line += meta("user") + fmt.Sprintf(`"message":{"role":"user","content":[{"tool_use_id":%q,"type":"tool_result","content":%s}]}}`, id, result) + "\n"
		}
		if err := emit(line); err != nil {
			return written, err
		}
	}
	return written, bw.Flush()
}
