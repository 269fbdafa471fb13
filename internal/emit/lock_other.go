//go:build !unix

package emit

import "os"

// lockDir does not lock where the system has no flock: concurrent runs on one directory are
// not serialised there, though each still never takes another's temporary files for its own.
func lockDir(string) (func(), error) { return func() {}, nil }

// interruptSignals are the signals Write holds until the tree is whole again.
var interruptSignals = []os.Signal{os.Interrupt}
