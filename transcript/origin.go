package transcript

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strings"
)

// OriginFile is the file under PLANQ_HOME that names this machine's
// origin: the id its shared sessions carry in the state repo.
const OriginFile = "origin"

// ValidOrigin reports whether id is an origin id: 1 to 64 lowercase
// letters, digits and '-', starting with a letter or digit, so it is safe
// as a path element in the state repo and in a ref.
func ValidOrigin(id string) error {
	if !idOK(id, 64, func(i int, c byte) bool { return isLowerAlnum(c) || i > 0 && c == '-' }) {
		return fmt.Errorf("%q is not an origin id (lowercase letters, digits and -)", id)
	}
	return nil
}

// Origin returns this machine's origin id, kept in PLANQ_HOME/origin and
// made on first use from the user's and the host's names (readable, for a
// teammate who sees whose session it is) and 6 random hex digits (so two
// machines never share one).
func Origin(home string) (string, error) {
	path := filepath.Join(home, OriginFile)
	if data, err := os.ReadFile(path); err == nil {
		id := strings.TrimSpace(string(data))
		if err := ValidOrigin(id); err != nil {
			return "", fmt.Errorf("%s: %w; delete the file and planq makes a new one", path, err)
		}
		return id, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	id := newOrigin()
	if err := os.MkdirAll(home, 0o755); err != nil {
		return "", fmt.Errorf("origin: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return Origin(home) // another process made it first
	}
	if err != nil {
		return "", fmt.Errorf("origin: %w", err)
	}
	_, err = f.WriteString(id + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return id, nil
}

func newOrigin() string {
	name := "user"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	host, _ := os.Hostname()
	var b [3]byte
	_, _ = rand.Read(b[:])
	parts := []string{originPart(name, 20)}
	if h := originPart(host, 24); h != "" {
		parts = append(parts, h)
	}
	parts = append(parts, hex.EncodeToString(b[:]))
	return strings.Join(parts, "-")
}

// originPart keeps the letters and digits of s, lowercased, other runs as
// one '-', at most max bytes.
func originPart(s string, max int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
		if b.Len() >= max {
			break
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > max {
		out = strings.Trim(out[:max], "-")
	}
	if out == "" {
		return "x"
	}
	return out
}
