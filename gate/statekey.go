package gate

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/planq-dev/planq/config"
)

// KeyFile is the secret the gate signs the records it keeps in a project
// with (its cache, the baseline of the check at declaration), in
// PLANQ_HOME, readable by the user only. The records live in the project's
// .jj directory, where a command the gate let through by mistake could
// write; without the key a written record does not verify, and the gate
// reads jj instead.
const KeyFile = "gate.key"

const keySize = 32

// stateKey returns the gate's key, creating it on first use. An error
// means no record can be trusted or signed: the gate then reads jj on
// every call.
func stateKey() ([]byte, error) {
	home, err := config.StateHome(nil)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(home, KeyFile)
	key, err := readKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	return createKey(home, path)
}

func readKey(path string) ([]byte, error) {
	key, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(key) != keySize {
		return nil, fmt.Errorf("%s holds %d bytes, not a %d-byte key: remove it and planq makes a new one", path, len(key), keySize)
	}
	return key, nil
}

// createKey writes a new random key to path, unless another process made
// one first: the key is written to a temporary file and linked into place,
// which fails when path exists, so every process ends up with the same key
// and none reads half of one.
func createKey(home, path string) ([]byte, error) {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("gate key: %w", err)
	}
	key := make([]byte, keySize)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("gate key: %w", err)
	}
	f, err := os.CreateTemp(home, "."+KeyFile+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("gate key: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, werr := f.Write(key)
	if err := errors.Join(werr, f.Chmod(0o600), f.Close()); err != nil {
		return nil, fmt.Errorf("gate key: %w", err)
	}
	if err := os.Link(tmp, path); err != nil {
		if other, rerr := readKey(path); rerr == nil {
			return other, nil // made by another process meanwhile
		}
		return nil, fmt.Errorf("gate key: %w", err)
	}
	return key, nil
}

// sign returns the record's signature: HMAC-SHA256 under key of its kind
// and fields, each length-prefixed so no two field lists sign alike.
func sign(key []byte, kind string, fields ...string) string {
	m := hmac.New(sha256.New, key)
	for _, f := range append([]string{kind}, fields...) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		m.Write(n[:])
		m.Write([]byte(f))
	}
	return hex.EncodeToString(m.Sum(nil))
}

// verify reports whether sig is the record's signature under key.
func verify(key []byte, sig, kind string, fields ...string) bool {
	want, err := hex.DecodeString(sig)
	if err != nil || len(key) == 0 {
		return false
	}
	got, _ := hex.DecodeString(sign(key, kind, fields...))
	return hmac.Equal(got, want)
}
