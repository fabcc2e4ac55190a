package transcript

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/planq-dev/planq/internal/atomicfile"
)

// The vault: the store keeps each session's transcript as the session goes.
// The hooks copy what is new at every turn end (stop), before a compaction
// and at the session's end, so neither a crash nor the host's own cleanup
// (Claude Code deletes transcripts after cleanupPeriodDays) takes more than
// the turn in flight. What a session wrote after its last hook (a crash
// mid-turn; Copilot CLI writes its last events as it exits) is copied by the
// next session start in the project: every transcript a hook copied from is
// noted under ProjectDir/vault/ (Note), and Sweep copies what the noted ones
// gained, forgetting each once it is gone, or whole and idle for a while.
// Behind finds, across every lineage, the transcripts still holding lines
// the store lacks (planq doctor, planq vault).

// vaultDir holds one note per live source: vault/<key of its path>.
const vaultDir = "vault"

// VaultIdle is how long a noted transcript, copied whole, must have been
// left unchanged before Sweep forgets it: its session is over.
const VaultIdle = 24 * time.Hour

// vaultNote is one note: a transcript and the lineage it is copied into.
type vaultNote struct {
	Root   string `json:"root"`
	Source string `json:"source"`
}

// vaultKey names src's note: the path may be long and hold any character.
func vaultKey(src string) string {
	sum := sha256.Sum256([]byte(src))
	return hex.EncodeToString(sum[:12]) + ".json"
}

// Note records src (an absolute path) as a transcript copied into the
// lineage root, so that Sweep copies what it gains after its session's
// last hook. It costs one small read when src is noted already.
func (s *Store) Note(root, src string) error {
	if err := ValidChangeID(root); err != nil {
		return fmt.Errorf("root change: %w", err)
	}
	src, err := filepath.Abs(src)
	if err != nil {
		return fmt.Errorf("transcript: source: %w", err)
	}
	path := filepath.Join(s.ProjectDir(), vaultDir, vaultKey(src))
	if n, err := readNote(path); err == nil && n == (vaultNote{Root: root, Source: src}) {
		return nil
	}
	data, _ := json.Marshal(vaultNote{Root: root, Source: src})
	if err := atomicfile.Write(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("transcript: note %s in the vault: %w", src, err)
	}
	return nil
}

func readNote(path string) (vaultNote, error) {
	var n vaultNote
	data, err := os.ReadFile(path)
	if err != nil {
		return n, err
	}
	if err := json.Unmarshal(data, &n); err != nil {
		return n, fmt.Errorf("%s: %w", path, err)
	}
	if ValidChangeID(n.Root) != nil || !filepath.IsAbs(n.Source) || filepath.Base(path) != vaultKey(n.Source) {
		return n, fmt.Errorf("%s is not a note of planq's", path)
	}
	return n, nil
}

// Sweep copies, for every noted transcript (Note), the complete lines it
// gained since its last copy, and forgets the note of a transcript that is
// gone, or that is copied whole and unchanged for idle (its session is
// over; a resumed session is noted again by its hooks). A note that is not
// planq's is removed. It stops early, with Pending set, when ctx is done.
func (s *Store) Sweep(ctx context.Context, idle time.Duration) (CopyResult, error) {
	var total CopyResult
	dir := filepath.Join(s.ProjectDir(), vaultDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return total, nil
	}
	if err != nil {
		return total, fmt.Errorf("transcript: read the vault's notes: %w", err)
	}
	var errs []error
	for _, e := range entries {
		if ctx.Err() != nil {
			total.Pending = true
			break
		}
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		n, err := readNote(path)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				_ = os.Remove(path)
			}
			continue
		}
		info, err := os.Stat(n.Source)
		if errors.Is(err, fs.ErrNotExist) {
			_ = os.Remove(path)
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("transcript: %w", err))
			continue
		}
		st, err := s.copyStateOf(n.Root)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		off := st.Sources[n.Source]
		if info.Size() > off {
			res, err := s.Copy(ctx, n.Root, n.Source, CopyOptions{})
			total.Lines += res.Lines
			total.Bytes += res.Bytes
			total.Pending = total.Pending || res.Pending
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if res.Bytes > 0 || res.Pending {
				continue // copied now: forgotten once idle
			}
			// Only a torn last line is left: it never completes once the
			// session is over.
		}
		if s.now().Sub(info.ModTime()) >= idle {
			_ = os.Remove(path)
		}
	}
	return total, errors.Join(errs...)
}

// Lag is a transcript holding bytes the store has not copied yet.
type Lag struct {
	Root     string    `json:"root"`     // the lineage it is copied into
	Source   string    `json:"source"`   // the host's transcript file
	Copied   int64     `json:"copied"`   // bytes of it copied so far
	Size     int64     `json:"size"`     // its size now
	Modified time.Time `json:"modified"` // its last change
}

// Behind lists the transcripts of the project's lineages recorded on this
// machine (those a hook copied from, and those the sessions' records name)
// that hold bytes the store lacks, least recently changed first. It reads
// every lineage's copy state and record: for planq doctor and planq vault,
// not for hooks. Lineages it cannot read are named in the error; the others
// are listed all the same.
func (s *Store) Behind() ([]Lag, error) {
	entries, err := os.ReadDir(s.ProjectDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("transcript: list lineages: %w", err)
	}
	var (
		out  []Lag
		errs []error
	)
	for _, e := range entries {
		root := e.Name()
		if !e.IsDir() || ValidChangeID(root) != nil {
			continue
		}
		st, err := s.copyStateOf(root)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sources := st.Sources
		if sess, err := s.Load(root); err == nil {
			for _, a := range sess.Agents {
				if _, ok := sources[a.Transcript]; !ok && a.Origin == "" && filepath.IsAbs(a.Transcript) && filepath.Ext(a.Transcript) == ".jsonl" {
					sources[a.Transcript] = 0
				}
			}
		}
		for src, off := range sources {
			info, err := os.Stat(src)
			if err != nil || !info.Mode().IsRegular() || info.Size() <= off {
				continue
			}
			out = append(out, Lag{Root: root, Source: src, Copied: off, Size: info.Size(), Modified: info.ModTime()})
		}
	}
	slices.SortFunc(out, func(a, b Lag) int {
		if c := a.Modified.Compare(b.Modified); c != 0 {
			return c
		}
		return strings.Compare(a.Source, b.Source)
	})
	return out, errors.Join(errs...)
}
