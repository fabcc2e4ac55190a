//go:build !unix

package staterepo

import "errors"

// startMaintenance does not start a background process on Windows (no
// sessions to detach it into); AutoMaintain then runs maintenance itself.
func (s *Store) startMaintenance() error {
	return errors.New("background maintenance needs a Unix session")
}
