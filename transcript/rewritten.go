package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
)

// Gemini CLI writes a model message to its session file, then writes it
// again under the same id once its tool calls are known (and may do so for
// any message it updates). Read for a reader (WithRender), only the last
// record of a message is shown: an earlier one whose id comes again within
// the next rewriteWindow lines is left out, so query_ancestor does not
// show the message twice. Raw reads show every line.
const (
	rewriteWindow = 4   // lines after a record where Gemini CLI writes it again
	idPrefixBytes = 256 // bytes of a line read for its id
)

// recordID is the id of a Gemini CLI message record ({"id":"…","type":…}
// as Gemini CLI writes it, the id first), or "" for any other line.
func recordID(line []byte) string {
	rest, ok := bytes.CutPrefix(line, []byte(`{"id":"`))
	if !ok {
		return ""
	}
	id, after, ok := bytes.Cut(rest, []byte(`"`))
	if !ok || len(id) == 0 || bytes.IndexByte(id, '\\') >= 0 || !bytes.HasPrefix(after, []byte(`,`)) {
		return ""
	}
	return string(id)
}

// dropRewritten returns lines (read from f, rendered) without the Gemini
// CLI records written again in the lines after them. Lines are left as
// they are when nothing renders them, or when f cannot be read again.
func (o readOptions) dropRewritten(f *os.File, lines []Line) []Line {
	if o.render == nil || len(lines) == 0 {
		return lines
	}
	out := lines[:0:0]
	head := make([]byte, idPrefixBytes)
	for _, l := range lines {
		n, _ := f.ReadAt(head, l.Off)
		id := recordID(head[:n])
		if id == "" {
			out = append(out, l) // not a Gemini CLI record: nothing more to read
			continue
		}
		prefixes, err := linePrefixes(f, l.Off, rewriteWindow+1)
		again := false
		for _, p := range prefixes[min(1, len(prefixes)):] {
			again = again || recordID(p) == id
		}
		if err != nil || !again {
			out = append(out, l)
		}
	}
	return out
}

// linePrefixes returns the first idPrefixBytes bytes of each of the n lines
// of f that start at off (fewer at the end of the file).
func linePrefixes(f *os.File, off int64, n int) ([][]byte, error) {
	r := bufio.NewReaderSize(io.NewSectionReader(f, off, 1<<62), 4096)
	var out [][]byte
	for len(out) < n {
		var prefix []byte
		read := false
		for {
			frag, err := r.ReadSlice('\n')
			read = read || len(frag) > 0
			if room := idPrefixBytes - len(prefix); room > 0 {
				prefix = append(prefix, frag[:min(len(frag), room)]...)
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return out, err
			}
			if read {
				out = append(out, prefix)
			}
			if err != nil {
				return out, nil
			}
			break
		}
	}
	return out, nil
}
