package gate

import (
	"fmt"
	"strings"
)

// sedCheck: sed modifies with -i, or when its script writes (w, W, s///w)
// or runs a command (e, s///e). The script is read the way GNU sed's
// compiler reads it; a script it cannot read to the end counts as
// modifying.
func sedCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, pos, _ := scan(args, r, false)
	if o, ok := r.flagOutcome(c, name, flags); ok && o.mod {
		if hasFlag(flags, "-i", "--in-place") {
			// The files after the script (or all, with -e) are edited.
			files := pos
			if !hasFlag(flags, "-e", "--expression", "-f", "--file") && len(files) > 0 {
				files = files[1:]
			}
			for _, f := range files {
				if c.a.writesInside(f) {
					o.sure = true
				}
			}
		}
		return o
	}
	if hasFlag(flags, "--help", "--version") {
		return outcome{}
	}
	var scripts []string
	fromFlags := false
	for _, f := range flags {
		switch f.name {
		case "-e", "--expression":
			fromFlags = true
			if !f.val.static {
				return outcome{mod: true, reason: name + " runs a script computed at run time"}
			}
			scripts = append(scripts, f.val.val)
		case "-f", "--file":
			return outcome{mod: true, reason: name + " " + f.name + " runs a sed script file planq does not read"}
		case "-s", "--separate", "-n", "--quiet", "--silent", "-E", "-r", "--regexp-extended", "-z", "--null-data",
			"--zero-terminated", "-u", "--unbuffered", "--posix", "--debug", "-l", "--line-length", "--sandbox",
			"--follow-symlinks", "-b", "--binary":
		default:
			return outcome{mod: true, reason: name + " " + f.name + " is an option planq does not know"}
		}
	}
	if !fromFlags {
		if len(pos) == 0 {
			return outcome{}
		}
		if !pos[0].static {
			return outcome{mod: true, reason: name + " runs a script computed at run time"}
		}
		scripts = []string{pos[0].val}
	}
	sandbox := hasFlag(flags, "--sandbox")
	writes, why := sedProgram(strings.Join(scripts, "\n"))
	if why != "" {
		if sandbox && strings.HasPrefix(why, "runs") {
			return outcome{} // GNU sed refuses e with --sandbox
		}
		return outcome{mod: true, reason: name + " script " + why}
	}
	for _, w := range writes {
		if sandbox || c.a.safeTarget(w) || c.a.outsideWrite(staticArg(w)) {
			continue
		}
		return outcome{mod: true, sure: c.a.writesInside(staticArg(w)), reason: name + " script writes to " + w + " (w command)"}
	}
	return outcome{}
}

// sedProgram reads a GNU sed program as sed's compiler does (compile.c:
// compile_program, match_slash, read_label, mark_subst_opts) and returns
// the files it writes, or why it runs a command or cannot be read.
func sedProgram(s string) (writes []string, why string) {
	p := &sedParser{s: s}
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(sedError); ok {
				writes, why = nil, "cannot be read to the end ("+string(e)+"), so planq cannot tell what it does"
				return
			}
			panic(r)
		}
	}()
	blocks := 0
	for {
		ch := p.next()
		for ch == ';' || isSedSpace(ch) {
			ch = p.next()
		}
		if ch == eof {
			break
		}
		hasAddr := false
		if p.address(ch) {
			hasAddr = true
			ch = p.nonblank()
			if ch == ',' {
				if !p.address(p.nonblank()) {
					p.fail("bad address after a comma")
				}
				ch = p.nonblank()
			}
		}
		if ch == '!' {
			ch = p.nonblank()
			if ch == '!' {
				p.fail("multiple !")
			}
		}
		switch ch {
		case '#':
			if hasAddr {
				p.fail("comments do not take addresses")
			}
			for ch != eof && ch != '\n' {
				ch = p.next()
			}
		case 'v':
			p.label()
		case '{':
			blocks++
		case '}':
			if blocks == 0 {
				p.fail("unexpected }")
			}
			blocks--
			p.endOfCmd()
		case 'e':
			return nil, "runs a command (e command)"
		case 'a', 'i', 'c':
			ch = p.nonblank()
			if ch == eof {
				p.fail("expected \\ after a, c or i")
			}
			if ch == '\\' {
				ch = p.next()
			} else {
				p.back()
				ch = '\n'
			}
			p.text(ch)
		case ':':
			if hasAddr {
				p.fail(": does not take addresses")
			}
			if p.label() == "" {
				p.fail("\":\" lacks a label")
			}
		case 'T', 'b', 't':
			p.label()
		case 'Q', 'q', 'L', 'l':
			ch = p.nonblank()
			if isDigit(ch) {
				p.integer(ch)
			} else {
				p.back()
			}
			p.endOfCmd()
		case '=', 'd', 'D', 'F', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'z', 'x':
			p.endOfCmd()
		case 'r', 'R':
			if p.filename() == "" {
				p.fail("missing filename")
			}
		case 'w', 'W':
			f := p.filename()
			if f == "" {
				p.fail("missing filename")
			}
			writes = append(writes, f)
		case 's':
			slash := p.next()
			if !p.slash(slash, true) || !p.slash(slash, false) {
				p.fail("unterminated s command")
			}
			if w, exec := p.substFlags(); exec {
				return nil, "runs a command (s///e)"
			} else if w != "" {
				writes = append(writes, w)
			}
		case 'y':
			slash := p.next()
			for range 2 { // y/source/dest/: two delimited parts
				if !p.slash(slash, false) {
					p.fail("unterminated y command")
				}
			}
			p.endOfCmd()
		case eof:
			p.fail("missing command")
		default:
			p.fail(fmt.Sprintf("unknown command %q", rune(ch)))
		}
	}
	if blocks > 0 {
		p.fail("unmatched {")
	}
	return writes, ""
}

const eof = -1

type sedError string

type sedParser struct {
	s string
	i int
}

func (p *sedParser) fail(msg string) { panic(sedError(msg)) }

func (p *sedParser) next() int {
	if p.i >= len(p.s) {
		p.i = len(p.s) + 1
		return eof
	}
	ch := p.s[p.i]
	p.i++
	return int(ch)
}

func (p *sedParser) back() {
	if p.i > 0 {
		p.i--
	}
}

// nonblank skips spaces and tabs (ISBLANK) and returns the next character.
func (p *sedParser) nonblank() int {
	ch := p.next()
	for ch == ' ' || ch == '\t' {
		ch = p.next()
	}
	return ch
}

func isSedSpace(ch int) bool {
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\v' || ch == '\f' || ch == '\r'
}

func isDigit(ch int) bool { return ch >= '0' && ch <= '9' }

func (p *sedParser) integer(ch int) {
	for isDigit(ch) {
		ch = p.next()
	}
	if ch != eof {
		p.back()
	}
}

// address reads an address starting with ch; false (reading nothing more)
// when ch does not start one.
func (p *sedParser) address(ch int) bool {
	switch {
	case ch == '/' || ch == '\\':
		if ch == '\\' {
			ch = p.next()
		}
		if !p.slash(ch, true) {
			p.fail("unterminated address regex")
		}
		for {
			ch = p.nonblank()
			if ch != 'I' && ch != 'M' {
				if ch != eof {
					p.back()
				}
				return true
			}
		}
	case isDigit(ch):
		p.integer(ch)
		ch = p.nonblank()
		if ch == '~' {
			p.integer(p.nonblank())
		} else if ch != eof {
			p.back()
		}
		return true
	case ch == '+' || ch == '~':
		p.integer(p.nonblank())
		return true
	case ch == '$':
		return true
	}
	return false
}

// slash reads up to the delimiter as match_slash does: a backslash quotes
// the next character, a newline ends it unterminated, and in a regex a
// bracket expression may hold the delimiter.
func (p *sedParser) slash(delim int, regex bool) bool {
	if delim == eof || delim == '\n' {
		return false
	}
	for {
		ch := p.next()
		switch {
		case ch == eof || ch == '\n':
			return false
		case ch == delim:
			return true
		case ch == '\\':
			if p.next() == eof {
				return false
			}
		case ch == '[' && regex:
			if p.charClass() != ']' {
				return false
			}
		}
	}
}

// charClass skips a bracket expression (snarf_char_class) and returns the
// character that ended it.
func (p *sedParser) charClass() int {
	ch := p.next()
	if ch == '^' {
		ch = p.next()
	}
	if ch == ']' {
		ch = p.next()
	}
	state, delim := 0, 0
	for ; ; ch = p.next() {
		switch ch {
		case eof, '\n':
			return ch
		case '.', ':', '=':
			if state == 1 {
				delim, state = ch, 2
			} else if state == 2 && ch == delim {
				state = 3
			} else {
				state &^= 1
			}
			continue
		case '[':
			if state == 0 {
				state = 1
			}
			continue
		case ']':
			if state == 0 || state == 1 {
				return ch
			} else if state == 3 {
				state = 0
			}
		}
		state &^= 1
	}
}

// label reads a label for :, b, t, T and v.
func (p *sedParser) label() string {
	ch := p.nonblank()
	start := p.i - 1
	for ch != eof && ch != '\n' && ch != ' ' && ch != '\t' && ch != ';' && ch != '}' && ch != '#' {
		ch = p.next()
	}
	end := p.i - 1
	if ch != eof {
		p.back()
	} else {
		end = len(p.s)
	}
	if start > end || start < 0 {
		return ""
	}
	return p.s[start:end]
}

// filename reads the rest of the line, after blanks.
func (p *sedParser) filename() string {
	ch := p.nonblank()
	var b strings.Builder
	for ch != eof && ch != '\n' {
		b.WriteByte(byte(ch))
		ch = p.next()
	}
	return b.String()
}

// text skips the text of a, i and c: to the end of the line, a backslash
// quoting the next character (a newline included).
func (p *sedParser) text(lead int) {
	if lead == eof {
		return
	}
	ch := p.next()
	for ch != eof && ch != '\n' {
		if ch == '\\' {
			ch = p.next()
			if ch == eof {
				return
			}
		}
		ch = p.next()
	}
}

func (p *sedParser) endOfCmd() {
	ch := p.nonblank()
	switch ch {
	case '}', '#':
		p.back()
	case eof, '\n', ';':
	default:
		p.fail(fmt.Sprintf("extra characters after a command (%q)", rune(ch)))
	}
}

// substFlags reads the flags of s///: the file of w, and whether e runs
// the result.
func (p *sedParser) substFlags() (write string, exec bool) {
	for {
		switch ch := p.nonblank(); {
		case ch == 'i' || ch == 'I' || ch == 'm' || ch == 'M' || ch == 'p' || ch == 'g':
		case ch == 'e':
			exec = true
		case ch == 'w':
			f := p.filename()
			if f == "" {
				p.fail("missing filename")
			}
			return f, exec
		case isDigit(ch):
			p.integer(ch)
		case ch == '}' || ch == '#':
			p.back()
			return "", exec
		case ch == eof || ch == '\n' || ch == ';':
			return "", exec
		case ch == '\r':
			if p.next() == '\n' {
				return "", exec
			}
			p.fail("unknown option to s")
		default:
			p.fail(fmt.Sprintf("unknown option to s (%q)", rune(ch)))
		}
	}
}
