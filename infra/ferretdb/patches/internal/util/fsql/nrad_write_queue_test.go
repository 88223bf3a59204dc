// NRAD's addition to FerretDB v1.24.2 (infra/ferretdb/patches, docs/adr/0002): tests of the
// writers' line (nrad_write_queue.go).

package fsql

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "modernc.org/sqlite"

	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

// TestNradWriteQueueOrder: writers that wait are given their turn in the order they came, one at a time.
func TestNradWriteQueueOrder(t *testing.T) {
	t.Parallel()

	q := newNradWriteQueue()
	first := q.wait(context.Background())

	const n = 20
	var mu sync.Mutex
	var order []int
	var inside, most int
	var wg sync.WaitGroup

	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			done := q.wait(context.Background())
			mu.Lock()
			order = append(order, i)
			inside++
			most = max(most, inside)
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			inside--
			mu.Unlock()
			done()
		}()
		// The next one comes once this one waits in the line.
		require.Eventually(t, func() bool { return q.waiting.Load() == int32(i+1) }, 5*time.Second, time.Millisecond)
		time.Sleep(time.Millisecond) // from counted to blocked in the channel
	}

	first()
	wg.Wait()

	expected := make([]int, n)
	for i := range expected {
		expected[i] = i
	}
	assert.Equal(t, expected, order)
	assert.Equal(t, 1, most)
}

// TestNradWriteQueueGivesUp: a writer that waited nradWriteWait, or whose context ended, goes on without a turn.
func TestNradWriteQueueGivesUp(t *testing.T) {
	q := newNradWriteQueue()
	held := q.wait(context.Background())

	saved := nradWriteWait
	nradWriteWait = 50 * time.Millisecond
	t.Cleanup(func() { nradWriteWait = saved })

	start := time.Now()
	done := q.wait(context.Background())
	assert.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond)
	done() // not a turn: hands nothing on
	assert.Len(t, q.turn, 1, "the holder keeps its turn")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	q.wait(ctx)()
	assert.Len(t, q.turn, 1)

	held()
	assert.Len(t, q.turn, 0)

	var nilQueue *nradWriteQueue
	nilQueue.wait(context.Background())()
}

// TestNradWriteQueueDatabase: concurrent transactions and statements on one SQLite database, each
// reading then writing, all succeed with a busy timeout too short for SQLite's own waiting to carry them.
func TestNradWriteQueueDatabase(t *testing.T) {
	t.Parallel()

	uri := "file:" + filepath.Join(t.TempDir(), "q.sqlite") + "?_pragma=journal_mode(wal)&_pragma=busy_timeout(1)"
	sqlDB, err := sql.Open("sqlite", uri)
	require.NoError(t, err)

	db := WrapDB(sqlDB, "nrad-write-queue", testutil.Logger(t))
	t.Cleanup(func() { require.NoError(t, db.Close()) })

	ctx := context.Background()
	_, err = db.ExecContext(ctx, `CREATE TABLE t (n INTEGER)`)
	require.NoError(t, err)

	const writers = 40
	var wg sync.WaitGroup
	errs := make(chan error, 2*writers)

	for range writers {
		wg.Add(2)
		go func() {
			defer wg.Done()
			errs <- db.InTransaction(ctx, func(tx *Tx) error {
				var n int
				if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil {
					return err
				}
				time.Sleep(time.Millisecond)
				_, err := tx.ExecContext(ctx, `INSERT INTO t (n) VALUES (?)`, n)
				return err
			})
		}()
		go func() {
			defer wg.Done()
			_, err := db.ExecContext(ctx, `INSERT INTO t (n) VALUES (-1)`)
			errs <- err
		}()
	}

	wg.Wait()
	close(errs)

	for err := range errs {
		require.NoError(t, err)
	}

	var n int
	require.NoError(t, db.QueryRowContext(ctx, `SELECT count(*) FROM t`).Scan(&n))
	assert.Equal(t, 2*writers, n)
}
