//go:build !unix

package staterepo

import (
	"io/fs"
	"os"
)

func allocated(st fs.FileInfo) int64 { return st.Size() }

// peakRSS is not measured on this platform.
func peakRSS(*os.ProcessState) int64 { return 0 }
