package sandbox

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// SeatbeltProfile is the macOS sandbox profile (SBPL, for sandbox-exec -p)
// that enforces pl. Seatbelt applies the last rule that matches, so the
// profile allows everything, then forbids writing the places code is
// loaded from, allows writing the temporary directories, the caches and
// the device files, and forbids writing the project last, so that a
// project under a temporary directory stays read-only. Renaming a
// directory above the project (which would move it out from under its
// rule) is forbidden too. Unix sockets outside the sandbox are not
// reachable and processes outside it get no signals, as on Linux, and no
// application gets Apple events (osascript telling Terminal or Finder to
// act would write the project outside the sandbox).
//
// It is a pure function of pl, unit-tested on every OS; it has never been
// run by sandbox-exec in planq's tests (they run on Linux).
func SeatbeltProfile(pl Plan) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n")
	var code []string
	if pl.Home != "" {
		code = append(code, "(regex "+strconv.Quote("^"+regexp.QuoteMeta(strings.TrimSuffix(pl.Home, "/"))+"/\\.")+")")
	}
	for _, d := range pl.Code {
		code = append(code, "(subpath "+strconv.Quote(d)+")")
	}
	rule(&b, "; Where programs load code and settings from: read-only.", "deny file-write*", code)
	var writable []string
	for _, d := range pl.Dirs {
		writable = append(writable, "(subpath "+strconv.Quote(d)+")")
	}
	for _, f := range pl.Files {
		if f == "/dev/pts" {
			// macOS's pseudo-terminals are /dev/ttysNNN.
			writable = append(writable, `(regex "^/dev/ttys[0-9]+$")`)
			continue
		}
		writable = append(writable, "(literal "+strconv.Quote(f)+")")
	}
	rule(&b, "; Temporary directories, build caches, devices: writable.", "allow file-write*", writable)
	var guarded, above []string
	for _, g := range pl.Guarded {
		guarded = append(guarded, "(subpath "+strconv.Quote(g)+")")
		for a := filepath.Dir(g); a != filepath.Dir(a); a = filepath.Dir(a) {
			above = append(above, "(literal "+strconv.Quote(a)+")")
		}
	}
	rule(&b, "; The project: read-only until the change is declared.", "deny file-write*", guarded)
	rule(&b, "; Directories above it: not renamed.", "deny file-write-unlink", above)
	b.WriteString("; Daemons, applications and processes outside the sandbox: not reachable.\n")
	b.WriteString(`(deny network-outbound (remote unix-socket (path-regex #"^/")))` + "\n")
	b.WriteString("(deny appleevent-send)\n")
	b.WriteString("(deny signal)\n(allow signal (target same-sandbox))\n")
	return b.String()
}

// rule writes one rule of the profile applying action to filters, if any.
func rule(b *strings.Builder, comment, action string, filters []string) {
	if len(filters) == 0 {
		return
	}
	b.WriteString(comment + "\n(" + action)
	for _, f := range filters {
		b.WriteString("\n  " + f)
	}
	b.WriteString(")\n")
}
