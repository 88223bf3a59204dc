// NRAD's addition to FerretDB v1.24.2 (infra/ferretdb/patches, docs/adr/0002): an insert of one
// statement runs without an explicit transaction.

package sqlite

import (
	"context"
	"database/sql"

	"github.com/FerretDB/FerretDB/internal/util/fsql"
)

// nradExecer runs a statement: a transaction, or the database in autocommit mode.
type nradExecer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// nradInsertIn runs an insert's statements: in one transaction as upstream does, or, when they are
// a single statement (oneStatement: no more documents than one INSERT takes), as that statement
// alone in autocommit mode.
//
// Alone, the statement is its own transaction: SQLite applies all its rows or none, as the
// transaction did. What changes is the cost: inside an explicit transaction SQLite keeps a
// statement journal for a statement that writes several rows and may abort (a unique index), so
// that a failed statement can be undone while the transaction goes on, copying the original of
// every page the statement changes — each page a 1,000-document insert touched, in memory allocated
// and freed again for every statement, about a twelfth of the server's CPU in a batch upload.
// Upstream never goes on after a failed statement (InTransaction rolls the whole transaction back),
// so that journal could never be used; in autocommit mode SQLite does not keep it.
func nradInsertIn(ctx context.Context, db *fsql.DB, oneStatement bool, f func(nradExecer) error) error {
	if oneStatement {
		return f(db)
	}

	return db.InTransaction(ctx, func(tx *fsql.Tx) error {
		return f(tx)
	})
}
