//go:build e2e

package e2e

import (
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHarnessEndsAWaitWhenAProcessEnds: a server that cannot start (its port taken) ends the
// test's wait at once, naming it and quoting its log, rather than leaving it to wait out limit.
func TestHarnessEndsAWaitWhenAProcessEnds(t *testing.T) {
	ctx := begin(t)
	start(t, ctx, t.TempDir(), "refused", "/bin/sh", "-c", "echo 'listen tcp: bind: address already in use'; exit 1")
	since := time.Now()
	err := wait(ctx, waitsIn(t, ctx), func() error { return errors.New("not ready") })
	if err == nil || !strings.Contains(err.Error(), "refused ended before the test (exit status 1)") || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("wait = %v; want the process that ended and its log", err)
	}
	if took := time.Since(since); took > 10*time.Second {
		t.Errorf("wait gave up after %s; want at once", took)
	}
}

// TestHarnessPortsLieBelowOutgoingConnections: the servers' ports are never handed out twice and
// lie below the kernel's range for outgoing connections, where no scrape or query takes one
// before its server binds it.
func TestHarnessPortsLieBelowOutgoingConnections(t *testing.T) {
	first := firstOutgoingPort()
	given := map[string]bool{}
	for range 16 {
		addr := freeAddr(t)
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.Atoi(port)
		if err != nil {
			t.Fatal(err)
		}
		if given[addr] {
			t.Errorf("%s given twice", addr)
		}
		given[addr] = true
		// A kernel whose range starts this low leaves no room below it: the kernel picks.
		if first > 1024+16 && n >= first {
			t.Errorf("%s: port %d in the kernel's range for outgoing connections (from %d)", addr, n, first)
		}
	}
}
