package conffile

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
)

// planq's block in a text file of the user's (Codex CLI's config.toml,
// Copilot CLI's instructions): the lines between planq's markers are
// planq's, the rest of the file is the user's and is kept byte for byte.

// SplitBlock returns data without planq's marked block (from the line
// begin to the line end) and where the block was (-1: none). A block
// marker not at a line's start, a begin without its end, or two blocks,
// are errors: the user edited the file, and is told to fix it by hand.
func SplitBlock(path string, data []byte, begin, end string) (rest []byte, at int, err error) {
	i := bytes.Index(data, []byte(begin))
	if i < 0 {
		return data, -1, nil
	}
	if i > 0 && data[i-1] != '\n' {
		return nil, 0, fmt.Errorf("%s: planq's block marker is not at the start of a line; fix the file by hand", path)
	}
	j := bytes.Index(data[i:], []byte(end))
	if j < 0 {
		return nil, 0, fmt.Errorf("%s: planq's block has no end marker %q; fix the file by hand", path, end)
	}
	stop := i + j + len(end)
	if stop < len(data) && data[stop] == '\n' {
		stop++
	}
	if bytes.Contains(data[stop:], []byte(begin)) {
		return nil, 0, fmt.Errorf("%s has two planq blocks; remove one by hand", path)
	}
	return append(append([]byte(nil), data[:i]...), data[stop:]...), i, nil
}

// PutBlock returns rest (a file without planq's block, as SplitBlock
// returns it) with block, the marked lines, where the old block was (at),
// else appended: after a blank line when rest ends its last line, else
// after the line break rest lacked. DropBlock takes what it added back.
func PutBlock(rest []byte, at int, block []byte) []byte {
	if at >= 0 {
		return append(append(append([]byte(nil), rest[:at]...), block...), rest[at:]...)
	}
	out := append([]byte(nil), rest...)
	switch {
	case len(out) == 0:
	case bytes.HasSuffix(out, []byte("\n")):
		out = append(out, '\n')
	default:
		out = append(out, '\n')
	}
	return append(out, block...)
}

// DropBlock returns rest (SplitBlock's, the block was at at) without what
// PutBlock put before a block it appended: the blank line, or the line
// break the file's last line lacked.
func DropBlock(rest []byte, at int) []byte {
	if at != len(rest) || at == 0 {
		return rest
	}
	return rest[:len(rest)-1] // "x\n\n" was "x\n"; "x\n" was "x"
}

// ReadEdit reads the file at path for an edit that starts as no change
// (After = Before; nil for a missing file). The edit writes the file with
// the mode it has (a user's 0644 config stays 0644), a new one with mode.
func ReadEdit(path string, mode fs.FileMode) (FileEdit, error) {
	e := FileEdit{Path: path, Mode: mode}
	data, err := ReadOrNil(path)
	if err != nil {
		return e, err
	}
	if info, err := os.Stat(path); err == nil {
		e.Mode = info.Mode().Perm()
	}
	e.Before, e.After = data, data
	return e, nil
}
