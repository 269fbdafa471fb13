//go:build unix

package emit

import (
	"os"
	"syscall"
)

// lockDir takes an exclusive advisory lock on a directory, waiting for another holder, and
// returns its release. The lock is on the directory itself: no lock file is left behind.
func lockDir(dir string) (func(), error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// interruptSignals are the signals Write holds until the tree is whole again.
var interruptSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM}
