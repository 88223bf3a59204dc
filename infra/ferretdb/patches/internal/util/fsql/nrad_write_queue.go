// NRAD's addition to FerretDB v1.24.2 (infra/ferretdb/patches, docs/adr/0002): a line for the
// writers of a database.

package fsql

// A line for the database's one writer (issue 38).
//
// A SQLite database takes one writer at a time. Upstream leaves the waiting to SQLite's
// busy_timeout: a connection that finds the write lock taken sleeps and tries again, for 1, 2, 5,
// 10, 15, 20, 25, 25, 25, 50, 50 and then 100 ms at a time, until it gets the lock or 10 s have
// passed, when the write fails with SQLITE_BUSY ("database is locked"). Under a steady stream of
// writes that is a lottery, not a line: a write that has waited a while sleeps 100 ms between
// tries, so one that came later, still trying every millisecond or two, takes the lock first, again
// and again — under NRAD's load test (200 users, about a write a second each of them, 2 cores)
// writes waited 13 s at p95 while the median waited 2, and some gave up after the busy timeout.
//
// Here the writes of one database (each autocommit statement of ExecContext, each transaction of
// InTransaction) wait for their turn in a Go channel, which hands the turn on in the order the
// writers came (its queue of blocked senders is first in, first out), and reach SQLite one at a
// time, so SQLite's busy wait is no longer met between them. A writer holds its turn until its
// statement or transaction has ended (committed or rolled back). Reads (QueryContext,
// QueryRowContext) do not wait: in WAL mode readers and the writer do not block each other.
//
// The line is a courtesy, never a new way to fail or to hang: a writer that has waited
// nradWriteWait (SQLite's busy_timeout) for its turn, or whose context ends, goes on without one,
// to SQLite's own waiting as before. So a writer that some day asked for a turn while holding one
// (none does: every transaction writes through its own Tx) would be held up by the wait, not
// deadlocked. What each statement does, and what it answers, is unchanged.

import (
	"context"
	"sync/atomic"
	"time"
)

// nradWriteWait is how long a writer waits for its turn before going on to SQLite's own waiting:
// the busy_timeout the pool opens each connection with (metadata/pool/uri.go).
var nradWriteWait = 10 * time.Second

// nradWriteQueue is a database's line of writers: a turn is a place in a channel of one.
type nradWriteQueue struct {
	turn chan struct{}

	// waiting counts the writers waiting for their turn (a test looks).
	waiting atomic.Int32
}

// newNradWriteQueue returns an empty line.
func newNradWriteQueue() *nradWriteQueue {
	return &nradWriteQueue{turn: make(chan struct{}, 1)}
}

// wait waits for the writer's turn (at most nradWriteWait, and not past ctx) and returns what
// hands it on; called on a nil queue (a DB made without WrapDB), it waits for nothing.
func (q *nradWriteQueue) wait(ctx context.Context) (done func()) {
	if q == nil {
		return func() {}
	}

	select {
	case q.turn <- struct{}{}:
		return q.handOn
	default:
	}

	t := time.NewTimer(nradWriteWait)
	defer t.Stop()

	q.waiting.Add(1)
	defer q.waiting.Add(-1)

	select {
	case q.turn <- struct{}{}:
		return q.handOn
	case <-t.C:
		return func() {}
	case <-ctx.Done():
		return func() {}
	}
}

// handOn ends a turn: the writer that has waited longest takes it.
func (q *nradWriteQueue) handOn() {
	<-q.turn
}
