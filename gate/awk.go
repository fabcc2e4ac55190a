package gate

import (
	"strings"
)

// awkCheck: awk modifies when a flag makes it write (gawk -i inplace, -o,
// -p, -d) or load code planq does not read (-f, -i, -l, -E), or when its
// program calls system(), pipes to or from a command, redirects print to a
// file inside the project, or uses gawk's @ directives. A program planq
// cannot read to the end counts as modifying.
func awkCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, pos, _ := scan(args, r, false)
	var progs []arg
	sandbox := false
	for _, f := range flags {
		switch f.name {
		case "-S", "--sandbox":
			sandbox = true
		}
	}
	for _, f := range flags {
		switch f.name {
		case "-i", "--include":
			if f.val.static && strings.TrimSpace(f.val.val) == "inplace" {
				return outcome{mod: true, reason: name + " -i inplace edits files in place"}
			}
			return outcome{mod: true, reason: name + " " + f.name + " loads an awk source file planq does not read"}
		case "-l", "--load":
			return outcome{mod: true, reason: name + " " + f.name + " loads a compiled extension"}
		case "-f", "--file", "-E", "--exec":
			if sandbox {
				continue
			}
			return outcome{mod: true, reason: name + " " + f.name + " runs an awk program file planq does not read"}
		case "-e", "--source":
			progs = append(progs, f.val)
		case "-o", "--pretty-print", "-p", "--profile", "-d", "--dump-variables":
			if f.hasVal && f.val.static && (c.a.safeTarget(f.val.val) || c.a.outsideWrite(f.val)) {
				continue
			}
			return outcome{mod: true, reason: name + " " + f.name + " writes a file"}
		case "-D", "--debug":
			return outcome{mod: true, reason: name + " " + f.name + " runs the debugger, which takes commands"}
		case "-W":
			switch v := f.val.val; {
			case !f.val.static:
				return outcome{mod: true, reason: name + " -W with an option computed at run time"}
			case v == "version" || v == "v" || v == "usage" || v == "help" || v == "posix_space" || v == "interactive" || v == "i" || strings.HasPrefix(v, "sprintf"):
			default:
				return outcome{mod: true, reason: name + " -W " + v + " is an option planq does not judge"}
			}
		}
	}
	if len(progs) == 0 {
		if len(pos) == 0 {
			return outcome{}
		}
		progs = pos[:1]
	}
	for _, prog := range progs {
		if !prog.static {
			return outcome{mod: true, reason: name + " runs a program computed at run time"}
		}
		writes, why := awkProgram(prog.val)
		if why != "" && !sandbox {
			return outcome{mod: true, reason: name + " program " + why}
		}
		if why != "" && strings.HasPrefix(why, "cannot") {
			return outcome{mod: true, reason: name + " program " + why}
		}
		for _, w := range writes {
			if sandbox || c.a.safeTarget(w) || c.a.outsideWrite(staticArg(w)) {
				continue
			}
			return outcome{mod: true, sure: c.a.writesInside(staticArg(w)), reason: name + " program redirects print output to " + w}
		}
	}
	return outcome{}
}

// awkProgram reads an awk program token by token, deciding between a
// regular expression and a division the way awk's grammar does, and
// returns the files print writes to, or why the program runs a command,
// writes where planq cannot tell, or cannot be read.
func awkProgram(p string) (writes []string, why string) {
	n := len(p)
	operand := false                        // the previous token ends an expression, so '/' divides
	printDepth := -1                        // paren depth at which the current print statement began
	var parens []bool                       // per open paren: whether it follows if, while or for
	pendingCond := false                    // the previous token was if, while or for
	skipString := func(i int) (int, bool) { // p[i] == '"'; index after the closing quote
		for i++; i < n; i++ {
			switch p[i] {
			case '\\':
				i++
			case '"':
				return i + 1, true
			case '\n':
				return i, false
			}
		}
		return i, false
	}
	for i := 0; i < n; {
		ch := p[i]
		switch {
		case ch == '#':
			for i < n && p[i] != '\n' {
				i++
			}
		case ch == '"':
			end, ok := skipString(i)
			if !ok {
				return nil, "cannot be read to the end (an unterminated string), so planq cannot tell what it does"
			}
			i, operand, pendingCond = end, true, false
		case ch == '/' && !operand:
			end, why := awkRegex(p, i)
			if why != "" {
				return nil, why
			}
			i, operand, pendingCond = end, true, false
		case ch == '\n' || ch == ';' || ch == '{' || ch == '}':
			if ch != '\n' || printDepth >= 0 && len(parens) <= printDepth {
				printDepth = -1
			}
			operand, pendingCond = false, false
			i++
		case ch == '(':
			parens = append(parens, pendingCond)
			operand, pendingCond = false, false
			i++
		case ch == ')':
			cond := false
			if len(parens) > 0 {
				cond = parens[len(parens)-1]
				parens = parens[:len(parens)-1]
			}
			operand = !cond // after if (…) a statement, maybe a regex, follows
			i++
		case ch == '|':
			if i+1 < n && p[i+1] == '|' {
				i += 2
				operand = false
				continue
			}
			return nil, "pipes to or from a command (|)"
		case ch == '@':
			return nil, "uses a gawk @ directive or indirect call, which can load or run code"
		case ch == '>' && printDepth >= 0 && len(parens) == printDepth:
			i++
			if i < n && p[i] == '>' {
				i++
			}
			for i < n && (p[i] == ' ' || p[i] == '\t') {
				i++
			}
			if i < n && p[i] == '"' {
				end, ok := skipString(i)
				rest := strings.TrimLeft(p[end:], " \t")
				if ok && (rest == "" || strings.ContainsAny(rest[:1], ";\n}")) && !strings.Contains(p[i+1:end-1], `\`) {
					writes = append(writes, p[i+1:end-1])
					i, operand = end, true
					continue
				}
			}
			return nil, "redirects print output to a file named at run time (>)"
		case ch == '+' || ch == '-':
			if i+1 < n && p[i+1] == ch {
				i += 2 // ++ or --: postfix keeps an operand, prefix needs one
				continue
			}
			operand = false
			i++
		case isIdentStart(ch):
			j := i
			for j < n && (isIdentStart(p[j]) || p[j] >= '0' && p[j] <= '9') {
				j++
			}
			word := p[i:j]
			i = j
			pendingCond = false
			switch word {
			case "system":
				return nil, "runs a command (system())"
			case "print", "printf":
				printDepth, operand = len(parens), false
			case "if", "while", "for":
				pendingCond, operand = true, false
			case "return", "in", "case", "do", "else", "delete", "exit":
				operand = false
			default:
				operand = true
			}
		case ch >= '0' && ch <= '9' || ch == '.' && i+1 < n && p[i+1] >= '0' && p[i+1] <= '9':
			for i < n && (p[i] >= '0' && p[i] <= '9' || p[i] == '.' || p[i] == 'x' || p[i] == 'X' ||
				p[i] >= 'a' && p[i] <= 'f' || p[i] >= 'A' && p[i] <= 'F') {
				i++
			}
			operand, pendingCond = true, false
		case ch == ' ' || ch == '\t' || ch == '\r':
			i++
		case ch == '\\':
			if i+1 < n && p[i+1] == '\n' {
				i += 2 // a line continuation
				continue
			}
			if i+2 < n && p[i+1] == '\r' && p[i+2] == '\n' {
				i += 3
				continue
			}
			return nil, "cannot be read to the end (a stray backslash), so planq cannot tell what it does"
		case ch == ']':
			operand, pendingCond = true, false
			i++
		case ch == '$':
			operand, pendingCond = false, false
			i++
		default:
			operand, pendingCond = false, false
			i++
		}
	}
	return writes, ""
}

// awkRegex reads the regular expression starting at p[i] == '/' and
// returns the index after it. A bracket expression holding a '/' is
// refused: awks disagree on whether it ends the expression.
func awkRegex(p string, i int) (int, string) {
	n := len(p)
	for i++; i < n; i++ {
		switch p[i] {
		case '\\':
			i++
		case '\n':
			return i, "cannot be read to the end (an unterminated regular expression), so planq cannot tell what it does"
		case '/':
			return i + 1, ""
		case '[':
			j := i + 1
			if j < n && p[j] == '^' {
				j++
			}
			if j < n && p[j] == ']' {
				j++
			}
			for ; j < n && p[j] != ']'; j++ {
				switch p[j] {
				case '/', '\n':
					return j, "has a '/' or a line break inside a bracket expression, which awks read differently, so planq cannot tell what it does"
				case '\\':
					j++
				case '[':
					if j+1 < n && strings.ContainsRune(":.=", rune(p[j+1])) {
						end := strings.Index(p[j+2:], string(p[j+1])+"]")
						if end < 0 {
							return j, "cannot be read to the end (a bracket expression), so planq cannot tell what it does"
						}
						j += 2 + end + 1
					}
				}
			}
			if j >= n {
				return j, "cannot be read to the end (a bracket expression), so planq cannot tell what it does"
			}
			i = j
		}
	}
	return i, "cannot be read to the end (an unterminated regular expression), so planq cannot tell what it does"
}

func isIdentStart(ch byte) bool {
	return ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z'
}
