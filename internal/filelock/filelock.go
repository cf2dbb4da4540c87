// Package filelock takes an advisory lock on a file for the life of a
// process, so that two runs do not use one directory at once. The lock is
// the operating system's (flock on Unix): it ends when the process does,
// however it ends, and leaves no stale lock behind.
package filelock

import (
	"errors"
	"os"
)

// ErrLocked reports a file that another process holds the lock on.
var ErrLocked = errors.New("locked by another process")

// Lock creates path if needed and takes its lock without waiting: it
// returns ErrLocked when another process holds it. Unlock releases it.
// Where the system has no such locks, Lock always succeeds.
func Lock(path string) (*Locked, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lock(f); err != nil {
		f.Close()
		return nil, err
	}
	return &Locked{f: f}, nil
}

// Locked is a held lock.
type Locked struct{ f *os.File }

// Unlock releases the lock.
func (l *Locked) Unlock() error { return l.f.Close() }
