package gate

import (
	"path/filepath"
	"slices"
	"strings"
)

// File operations. They modify, except when every file they write is
// provably outside the project (resolved, and not a place programs load
// code from): rm -rf /tmp/build-x, mkdir -p /tmp/out, mktemp -d.

// fileOp is a command that writes the files it is given as operands.
type fileOp struct {
	why    string
	valued []string // flags that take a value
	// dests are flags whose value is a file or directory written (cp -t).
	dests []string
	skip  int // leading operands that are not files (chmod's mode)
	// readFirst says the operands before the last are only read (cp, mv
	// read their sources; mv removes them, so mv judges every operand).
	links     []string // flags with which the command creates links
	lastGlobs bool     // a glob in the last component is credited (rm does not follow the final link)
}

func fileOpRule(op fileOp) *rule {
	r := &rule{why: op.why, valued: op.valued}
	r.check = func(c *cmdCtx, name string, args []arg, _ *rule) outcome {
		flags, pos, _ := scan(args, r, false)
		if hasFlag(flags, "--help", "--version") && len(pos) == 0 {
			return outcome{}
		}
		for _, f := range flags {
			if slices.Contains(op.links, f.name) || strings.HasPrefix(f.name, "--preserve") && strings.Contains(f.val.val, "links") {
				c.a.facts.links = true
			}
		}
		var files []arg
		for _, f := range flags {
			if slices.Contains(op.dests, f.name) {
				files = append(files, f.val)
			}
		}
		skip := op.skip
		if skip > 0 && hasFlag(flags, "--reference") {
			skip = 0
		}
		if len(pos) < skip {
			return outcome{mod: true, reason: name + " " + op.why}
		}
		files = append(files, pos[skip:]...)
		if len(files) == 0 {
			return outcome{mod: true, reason: name + " " + op.why}
		}
		for _, f := range files {
			if !c.a.outsideOperand(f, op.lastGlobs) {
				return outcome{mod: true, sure: c.a.writesInside(f), reason: name + " " + op.why}
			}
		}
		for _, f := range files {
			c.a.sawOutside(f.val)
		}
		return outcome{}
	}
	return r
}

// outsideOperand reports whether a file operand is provably outside the
// project; with lastGlob a glob in its last component is allowed when the
// directory it lists is neither in nor above the project.
func (a *analyzer) outsideOperand(f arg, lastGlob bool) bool {
	if !f.glob {
		return a.pathKind(f) == pathOutside
	}
	if !lastGlob || !f.static || a.facts.dotglob {
		return false
	}
	dir, base := filepath.Split(f.val)
	if dir == "" || strings.ContainsAny(dir, "*?[{") || strings.HasPrefix(base, ".") || base == "" {
		return false
	}
	d := f
	d.val, d.glob = filepath.Clean(dir), false
	if a.pathKind(d) != pathOutside {
		return false
	}
	rs, ok := a.readings(d.val, a.where.Cwd)
	if !ok {
		return false
	}
	// The glob must not be able to match an entry that tools find by
	// walking up (it could not: the directory is not above the project).
	for _, r := range rs {
		if within(r, a.where.Root) {
			return false
		}
	}
	return true
}

func fileOpRules(t table) {
	rm := fileOpRule(fileOp{why: whyDeletes, lastGlobs: true})
	t["rm"], t["unlink"], t["srm"] = rm, rm, rm
	t["rmdir"] = fileOpRule(fileOp{why: whyDeletes, lastGlobs: true})
	t["shred"] = fileOpRule(fileOp{why: "overwrites files", valued: []string{"-n", "--iterations", "-s", "--size", "--random-source"}})
	t["mkdir"] = fileOpRule(fileOp{why: "creates directories", valued: []string{"-m", "--mode", "--context"}})
	t["touch"] = fileOpRule(fileOp{why: "creates or touches files", valued: []string{"-d", "--date", "-t", "-r", "--reference", "--time"}})
	t["truncate"] = fileOpRule(fileOp{why: "truncates or writes files", valued: []string{"-s", "--size", "-r", "--reference"}})
	t["mkfifo"] = fileOpRule(fileOp{why: "creates files", valued: []string{"-m", "--mode", "--context"}})
	chmodValued := []string{"--reference", "--from"}
	t["chmod"] = fileOpRule(fileOp{why: "changes file permissions", valued: chmodValued, skip: 1})
	t["chown"] = fileOpRule(fileOp{why: "changes file ownership", valued: chmodValued, skip: 1})
	t["chgrp"] = t["chown"]
	cpLinks := []string{"-r", "-R", "--recursive", "-a", "--archive", "-d", "-P", "--no-dereference", "-s", "--symbolic-link", "-l", "--link"}
	t["cp"] = fileOpRule(fileOp{why: "copies files", valued: []string{"-t", "--target-directory", "-S", "--suffix", "--sparse", "--reflink", "--context"},
		dests: []string{"-t", "--target-directory"}, links: cpLinks})
	t["mv"] = fileOpRule(fileOp{why: "moves or renames files", valued: []string{"-t", "--target-directory", "-S", "--suffix", "--context"},
		dests: []string{"-t", "--target-directory"}})
	t["install"] = fileOpRule(fileOp{why: "copies files", valued: []string{"-m", "--mode", "-o", "--owner", "-g", "--group", "-t", "--target-directory", "-S", "--suffix", "--strip-program", "--context"},
		dests: []string{"-t", "--target-directory"}})
	t["mktemp"] = &rule{why: "creates a temporary file", roFlags: []string{"-u", "--dry-run"},
		valued: []string{"-p", "--tmpdir", "--suffix"}, check: mktempCheck}
	t["tempfile"] = mod("creates a temporary file")
	t["dd"] = &rule{why: "writes files", check: ddCheck}
	// tee's --output-error takes its mode only after =: the next word is a
	// file tee writes.
	t["tee"] = &rule{ro: true, check: teeCheck}
	link := &rule{why: "creates links", inPlace: true, valued: []string{"-t", "--target-directory", "-S", "--suffix"}}
	t["ln"], t["link"] = link, link
}

// mktempCheck: mktemp creates a file or directory in $TMPDIR (or /tmp), in
// -p DIR, or where its template says; outside the project it is credited.
func mktempCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, pos, _ := scan(args, r, false)
	if o, ok := r.flagOutcome(c, name, flags); ok {
		return o
	}
	var dir *arg
	tmpdir := false
	for _, f := range flags {
		switch f.name {
		case "-p", "--tmpdir":
			tmpdir = true
			if f.hasVal && f.val.static && f.val.val != "" {
				v := f.val
				dir = &v
			}
		case "-t":
			tmpdir = true
		}
	}
	if len(pos) > 1 {
		return outcome{mod: true, reason: name + " " + r.why}
	}
	def := c.a.where.getenv("TMPDIR")
	if def == "" {
		def = "/tmp"
	}
	var target arg
	switch {
	case len(pos) == 1 && !tmpdir && dir == nil:
		target = pos[0] // a template is a path of its own
		if target.static {
			target.val = strings.TrimRight(target.val, "X") + "x"
		}
	case dir != nil:
		target = staticArg(filepath.Join(dir.val, "x"))
	default:
		target = staticArg(filepath.Join(def, "x"))
	}
	if !target.static || c.a.pathKind(target) != pathOutside {
		return outcome{mod: true, reason: name + " " + r.why + " inside the project"}
	}
	c.a.sawOutside(filepath.Dir(target.val))
	return outcome{}
}

// ddCheck: dd writes of=FILE (or stdout without it).
func ddCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	for _, a := range args {
		if !a.static {
			return outcome{mod: true, reason: name + " has an operand computed at run time"}
		}
		if v, ok := strings.CutPrefix(a.val, "of="); ok {
			o := staticArg(v)
			if c.a.safeTarget(v) || c.a.outsideWrite(o) {
				continue
			}
			return outcome{mod: true, sure: c.a.writesInside(o), reason: name + " writes " + v}
		}
	}
	return outcome{}
}

// teeCheck: tee writes every file it is given.
func teeCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	_, pos, _ := scan(args, r, false)
	for _, p := range pos {
		if p.static && c.a.safeTarget(p.val) {
			continue
		}
		if !p.static || !c.a.outsideWrite(p) {
			return outcome{mod: true, sure: c.a.writesInside(p), reason: name + " writes to " + p.raw}
		}
	}
	return outcome{}
}
