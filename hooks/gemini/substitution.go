package gemini

// refusesSubstitution reports whether Gemini CLI refuses to run command as
// a command injection: a "$(", a backtick, or outside double quotes a "<("
// or ">(", anywhere outside single quotes and not escaped. Gemini CLI runs
// this check (detectBashSubstitution, 0.61.0) on the command it is about to
// run, after the BeforeTool hooks, so planq keeps the model's command as it
// is when Gemini CLI will refuse it: a rewrite that quotes the command would
// hide what Gemini CLI refuses today. Like Gemini CLI's, the scan knows quotes
// and backslashes, not heredocs or comments.
func refusesSubstitution(command string) bool {
	inSingle, inDouble := false, false
	for i := 0; i < len(command); i++ {
		c := command[i]
		switch {
		case c == '\'' && !inDouble:
			inSingle = !inSingle
			continue
		case c == '"' && !inSingle:
			inDouble = !inDouble
			continue
		case inSingle:
			continue
		}
		if c == '\\' && i+1 < len(command) {
			if !inDouble {
				i++
				continue
			}
			switch command[i+1] {
			case '$', '`', '"', '\\', '\n':
				i++
				continue
			}
		}
		next := byte(0)
		if i+1 < len(command) {
			next = command[i+1]
		}
		switch {
		case c == '$' && next == '(':
			return true
		case !inDouble && (c == '<' || c == '>') && next == '(':
			return true
		case c == '`':
			return true
		}
	}
	return false
}
