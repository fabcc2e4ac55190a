package changelog

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// rawEntry is the front matter as written, before validation.
type rawEntry struct {
	ID           string   `yaml:"id"`
	Timestamp    string   `yaml:"timestamp"`
	Agent        string   `yaml:"agent"`
	Type         string   `yaml:"type"`
	Parent       string   `yaml:"parent"`
	DependsOn    []string `yaml:"depends_on"`
	Decision     string   `yaml:"decision"`
	Alternatives []string `yaml:"alternatives"`
	Rationale    string   `yaml:"rationale"`
	To           string   `yaml:"to"`
	NextSteps    []string `yaml:"next_steps"`
	Status       string   `yaml:"status"`

	ts    time.Time // set by the fast path instead of Timestamp
	hasTS bool
}

// errSlow makes the fast path hand the front matter to yaml.v3.
var errSlow = errors.New("not in the fast subset")

// parseFrontMatter parses and validates the lines between the "---" lines.
// intern, when not nil, shares the strings of repeated agent names.
func parseFrontMatter(lines [][]byte, intern map[string]string) (Entry, error) {
	var r rawEntry
	err := fastFrontMatter(lines, &r, intern)
	if err == errSlow {
		r = rawEntry{}
		err = yamlFrontMatter(lines, &r)
	}
	if err != nil {
		return Entry{}, err
	}
	return finishEntry(&r)
}

// yamlFrontMatter decodes the front matter with yaml.v3.
func yamlFrontMatter(lines [][]byte, r *rawEntry) error {
	doc := bytes.Join(lines, []byte("\n"))
	var n yaml.Node
	if err := yaml.Unmarshal(doc, &n); err != nil {
		return fmt.Errorf("front matter is not valid YAML: %s", yamlMsg(err))
	}
	if len(n.Content) == 0 {
		return errors.New("front matter is empty")
	}
	if n.Content[0].Kind != yaml.MappingNode {
		return errors.New("front matter is not a YAML mapping of key: value lines")
	}
	if err := n.Content[0].Decode(r); err != nil {
		return fmt.Errorf("front matter has a value of the wrong kind: %s", yamlMsg(err))
	}
	return nil
}

func yamlMsg(err error) string {
	s := strings.TrimPrefix(err.Error(), "yaml: ")
	s = strings.ReplaceAll(s, "\n", "; ")
	return s
}

// fastFrontMatter parses the subset of YAML that Marshal writes — one
// "key: value" per line, plain or double-quoted scalars, one-line flow
// lists — with the values yaml.v3 would give. Anything else returns errSlow.
func fastFrontMatter(lines [][]byte, r *rawEntry, intern map[string]string) error {
	var seen uint16
	for _, l := range lines {
		l = bytes.TrimRight(l, " \t")
		if !yamlPrintable(l) {
			return errSlow
		}
		if len(l) == 0 || l[0] == '#' {
			continue
		}
		i := bytes.IndexByte(l, ':')
		if i <= 0 || (i+1 < len(l) && l[i+1] != ' ') {
			return errSlow
		}
		key := l[:i]
		for _, c := range key {
			if !(c >= 'a' && c <= 'z' || c == '_') {
				return errSlow
			}
		}
		val := bytes.TrimLeft(l[i+1:], " ")
		var str *string
		var list *[]string
		var bit uint16
		switch string(key) {
		case "id":
			str, bit = &r.ID, 1
		case "timestamp":
			str, bit = &r.Timestamp, 2
		case "agent":
			str, bit = &r.Agent, 4
		case "type":
			str, bit = &r.Type, 8
		case "parent":
			str, bit = &r.Parent, 16
		case "decision":
			str, bit = &r.Decision, 32
		case "rationale":
			str, bit = &r.Rationale, 64
		case "to":
			str, bit = &r.To, 128
		case "status":
			str, bit = &r.Status, 256
		case "depends_on":
			list, bit = &r.DependsOn, 512
		case "alternatives":
			list, bit = &r.Alternatives, 1024
		case "next_steps":
			list, bit = &r.NextSteps, 2048
		default:
			return errSlow // unknown keys: let yaml.v3 judge them
		}
		if seen&bit != 0 {
			return errSlow // duplicate key: yaml.v3 reports it
		}
		seen |= bit
		if bit == 2 {
			if t, ok := parseTimeZ(val); ok {
				r.ts, r.hasTS = t, true
				continue
			}
		}
		if bit == 4 || bit == 8 || bit == 256 { // agent, type, status repeat: share their strings
			if v, ok := intern[string(val)]; ok {
				*str = v
				continue
			}
		}
		if str != nil {
			v, ok := fastScalar(val, false)
			if ok && intern != nil && (bit == 4 || bit == 8 || bit == 256) && len(intern) < 4096 && string(val) == v {
				intern[v] = v
			}
			if !ok {
				return errSlow
			}
			*str = v
			continue
		}
		if len(val) == 0 || isNull(val) {
			*list = nil
			continue
		}
		if val[0] != '[' || val[len(val)-1] != ']' {
			return errSlow
		}
		items, ok := fastFlow(val[1 : len(val)-1])
		if !ok {
			return errSlow
		}
		*list = items
	}
	return nil
}

func isNull(v []byte) bool {
	switch string(v) {
	case "~", "null", "Null", "NULL":
		return true
	}
	return false
}

// fastScalar reads a plain or double-quoted scalar as yaml.v3 decodes it
// into a string.
func fastScalar(v []byte, flow bool) (string, bool) {
	if len(v) == 0 || isNull(v) {
		return "", true
	}
	if v[0] == '"' {
		s, n, ok := fastQuoted(v)
		if !ok || n != len(v) {
			return "", false
		}
		return s, true
	}
	if !plainReadable(v, flow) {
		return "", false
	}
	return string(v), true
}

// plainReadable reports whether v is a plain scalar whose string value is v
// itself; conservative.
func plainReadable(v []byte, flow bool) bool {
	switch v[0] {
	case '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', ' ', '\t':
		return false
	}
	if v[len(v)-1] == ' ' || v[len(v)-1] == '\t' {
		return false
	}
	for i, c := range v {
		switch {
		case c < 0x20 || c == 0x7f:
			return false
		case c >= 0x80:
			return false // non-ASCII plain scalars: leave them to yaml.v3
		case c == ':' && (i+1 == len(v) || v[i+1] == ' ' || v[i+1] == '\t' || flow && v[i+1] == ','):
			return false
		case c == '#' && (v[i-1] == ' ' || v[i-1] == '\t'):
			return false
		case flow && (c == ',' || c == '[' || c == ']' || c == '{' || c == '}'):
			return false
		}
	}
	return true
}

// fastQuoted reads a double-quoted scalar at the start of v with the
// escapes Marshal writes; it returns the value and the bytes consumed.
func fastQuoted(v []byte) (string, int, bool) {
	var b strings.Builder
	for i := 1; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			return b.String(), i + 1, true
		case c == '\\':
			if i+1 >= len(v) {
				return "", 0, false
			}
			i++
			switch v[i] {
			case '"':
				b.WriteByte('"')
			case '\\':
				b.WriteByte('\\')
			case '/':
				b.WriteByte('/')
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'u':
				if i+4 >= len(v) {
					return "", 0, false
				}
				n, err := strconv.ParseUint(string(v[i+1:i+5]), 16, 32)
				if err != nil || n >= 0xd800 && n <= 0xdfff {
					return "", 0, false
				}
				b.WriteRune(rune(n))
				i += 4
			default:
				return "", 0, false
			}
		case c < 0x20 && c != '\t':
			return "", 0, false
		case c >= 0x80:
			r, size := utf8.DecodeRune(v[i:])
			if r == utf8.RuneError && size <= 1 || r == 0xfeff || r == 0x85 || r == 0x2028 || r == 0x2029 {
				return "", 0, false
			}
			b.Write(v[i : i+size])
			i += size - 1
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// fastFlow reads the inside of a one-line flow list of plain or
// double-quoted scalars.
func fastFlow(v []byte) ([]string, bool) {
	v = bytes.Trim(v, " ")
	if len(v) == 0 {
		return []string{}, true
	}
	var out []string
	for {
		var item string
		if v[0] == '"' {
			s, n, ok := fastQuoted(v)
			if !ok {
				return nil, false
			}
			item, v = s, bytes.TrimLeft(v[n:], " ")
		} else {
			j := bytes.IndexByte(v, ',')
			if j < 0 {
				j = len(v)
			}
			p := bytes.TrimRight(v[:j], " ")
			if len(p) == 0 || isNull(p) || !plainReadable(p, true) {
				return nil, false
			}
			item, v = string(p), v[j:]
		}
		out = append(out, item)
		if len(v) == 0 {
			return out, true
		}
		if v[0] != ',' {
			return nil, false
		}
		v = bytes.TrimLeft(v[1:], " ")
		if len(v) == 0 {
			return nil, false // trailing comma: leave it to yaml.v3
		}
	}
}

// yamlPrintable reports whether every character of l is one YAML allows
// (tab, printable ASCII, and the printable Unicode ranges of YAML 1.2).
func yamlPrintable(l []byte) bool {
	for i := 0; i < len(l); {
		c := l[i]
		if c < 0x80 {
			if c < 0x20 && c != '\t' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(l[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return false
		case r == 0x85, r >= 0xa0 && r <= 0xd7ff, r >= 0xe000 && r <= 0xfffd && r != 0xfeff, r >= 0x10000 && r <= 0x10ffff:
		default:
			return false
		}
		i += size
	}
	return true
}

// parseTimeZ reads the timestamps Marshal writes, "2006-01-02T15:04:05Z"
// with an optional fraction of up to nine digits, without allocating.
func parseTimeZ(b []byte) (time.Time, bool) {
	if len(b) < 20 || b[len(b)-1] != 'Z' || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return time.Time{}, false
	}
	num := func(s []byte) (int, bool) {
		n := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	year, ok1 := num(b[0:4])
	month, ok2 := num(b[5:7])
	day, ok3 := num(b[8:10])
	hour, ok4 := num(b[11:13])
	minute, ok5 := num(b[14:16])
	sec, ok6 := num(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return time.Time{}, false
	}
	nsec := 0
	if frac := b[19 : len(b)-1]; len(frac) > 0 {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return time.Time{}, false
		}
		f, ok := num(frac[1:])
		if !ok {
			return time.Time{}, false
		}
		for i := len(frac) - 1; i < 9; i++ {
			f *= 10
		}
		nsec = f
	} else if len(b) != 20 {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	if t.Year() != year || int(t.Month()) != month || t.Day() != day || t.Hour() != hour || t.Minute() != minute || t.Second() != sec {
		return time.Time{}, false // out of range, e.g. February 30
	}
	return t, true
}
