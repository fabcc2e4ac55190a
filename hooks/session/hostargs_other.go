//go:build !linux

package session

func hostArgs(HostProcess) []string { return nil }
