// NRAD's addition to FerretDB v1.24.2 (infra/ferretdb/patches, docs/adr/0002): learning the kinds
// of a collection written before the patch, and keeping SQLite's statistics current.

package metadata

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// nradLearn reads the kinds of every field of a collection whose settings do not have them (a
// collection written by a build without NRAD's patch), from the type schema each stored document
// carries, in SQL (no document is decoded), and stores them.
func (r *Registry) nradLearn(ctx context.Context, dbName, collectionName string) error {
	return r.nradExclusive(ctx, dbName, collectionName, func(*Collection) error {
		// Another query may have learned them while this one waited for the lock.
		c := r.CollectionGet(ctx, dbName, collectionName)
		if c == nil || c.Settings.Nrad != nil {
			return nil
		}

		db := r.DatabaseGetExisting(ctx, dbName)
		if db == nil {
			return nil
		}

		kinds, err := learnKinds(ctx, db, c.TableName)
		if err != nil {
			return lazyerrors.Error(err)
		}

		r.l.InfoContext(ctx, "NRAD: learned the kinds of a collection's fields", slog.String("collection", collectionName))

		return r.nradUpdate(ctx, dbName, collectionName, func(c *Collection) bool {
			if c.Settings.Nrad != nil {
				return false
			}

			c.Settings.Nrad = &NradSettings{Kinds: kinds}

			return true
		})
	})
}

// schemaKinds maps the type names of FerretDB's stored schema to kinds; dates and numbers are
// refined from their values.
var schemaKinds = map[string]uint32{
	"string":    KindString,
	"objectId":  KindObjectID,
	"bool":      KindBool,
	"null":      KindNull,
	"array":     KindArray,
	"object":    KindObject,
	"binData":   KindBinary,
	"regex":     KindRegex,
	"timestamp": KindTimestamp,
	"int":       KindNumSafe,
	// conservative for array elements, refined for top-level values
	"date":   KindDate13 | KindDateOther,
	"long":   KindNumSafe | KindNumOdd,
	"double": KindNumSafe | KindNumOdd,
}

// learnKinds computes the kinds of a table's documents.
func learnKinds(ctx context.Context, db *fsql.DB, table string) (map[string]uint32, error) {
	kinds := map[string]uint32{}

	// Top-level values: the type from the schema; for dates and numbers, whether each value's text
	// is "good" (13 digits; within ±2^53 and not -0) or "odd".
	q := fmt.Sprintf(`
		SELECT key, t,
			coalesce(max(CASE t
				WHEN 'date' THEN length(x) = 13 AND substr(x, 1, 1) BETWEEN '1' AND '9'
				WHEN 'long' THEN CAST(x AS INTEGER) BETWEEN -9007199254740992 AND 9007199254740992
				WHEN 'double' THEN x != '-0' AND CAST(x AS REAL) BETWEEN -9007199254740992.0 AND 9007199254740992.0
				ELSE 1 END), 0),
			coalesce(max(CASE t
				WHEN 'date' THEN NOT (length(x) = 13 AND substr(x, 1, 1) BETWEEN '1' AND '9')
				WHEN 'long' THEN NOT (CAST(x AS INTEGER) BETWEEN -9007199254740992 AND 9007199254740992)
				WHEN 'double' THEN NOT (x != '-0' AND CAST(x AS REAL) BETWEEN -9007199254740992.0 AND 9007199254740992.0)
				ELSE 0 END), 1)
		FROM (
			SELECT s.key AS key, s.value ->> 't' AS t,
				CASE WHEN s.key GLOB '[A-Za-z_]*' AND NOT s.key GLOB '*[^A-Za-z0-9_]*' THEN d.%[1]s -> s.key END AS x
			FROM %[2]q AS d, json_each(d.%[1]s, '$."$s".p') AS s
		)
		GROUP BY key, t`, DefaultColumn, table)

	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	for rows.Next() {
		var key, t string
		var good, odd bool

		if err = rows.Scan(&key, &t, &good, &odd); err != nil {
			rows.Close()
			return nil, lazyerrors.Error(err)
		}

		k, ok := schemaKinds[t]
		if !ok {
			k = KindOther
		}

		switch t {
		case "date":
			k = 0
			if good {
				k |= KindDate13
			}

			if odd {
				k |= KindDateOther
			}
		case "long", "double":
			k = 0
			if good {
				k |= KindNumSafe
			}

			if odd {
				k |= KindNumOdd
			}
		}

		if !PlainField(key) {
			k = KindUnknown
		}

		kinds[key] |= k
	}

	if err = rows.Err(); err != nil {
		rows.Close()
		return nil, lazyerrors.Error(err)
	}

	rows.Close()

	// The elements of arrays, from the schema alone.
	q = fmt.Sprintf(`
		SELECT s.key, e.value ->> 't'
		FROM %[2]q AS d, json_each(d.%[1]s, '$."$s".p') AS s, json_each(s.value, '$.i') AS e
		WHERE s.value ->> 't' = 'array'
		GROUP BY 1, 2`, DefaultColumn, table)

	if rows, err = db.QueryContext(ctx, q); err != nil {
		return nil, lazyerrors.Error(err)
	}

	defer rows.Close()

	for rows.Next() {
		var key, t string

		if err = rows.Scan(&key, &t); err != nil {
			return nil, lazyerrors.Error(err)
		}

		k, ok := schemaKinds[t]
		if !ok {
			k = KindOther
		}

		kinds[key] |= k << KindElementShift
	}

	if err = rows.Err(); err != nil {
		return nil, lazyerrors.Error(err)
	}

	return kinds, nil
}

// nradAnalyze counts the changes of one table since its statistics were last gathered.
type nradAnalyze struct {
	changes int64 // since the last ANALYZE
	seen    int64 // changes counted before the last ANALYZE (a measure of the table's size)
	running bool
}

// analyzeEvery returns after how many changes a table's statistics are gathered again: when it
// has grown or changed by a quarter, and not for fewer than 500 changes.
func analyzeEvery(seen int64) int64 {
	return max(500, seen/4)
}

// NradChanged counts changed documents of a collection's table and, once they are many compared
// with what the table held when SQLite's statistics were last gathered, gathers them again in the
// background (ANALYZE with analysis_limit: a sample of each index, so it stays quick), so that
// SQLite keeps choosing the right index as the collection grows.
func (r *Registry) NradChanged(dbName, table string, n int) {
	r.nradAnalyze(dbName, table, n, false)
}

// NradAnalyzeSoon gathers a table's statistics again now (in the background), e.g. after an index
// was created, unless that is running already.
func (r *Registry) NradAnalyzeSoon(dbName, table string) {
	r.nradAnalyze(dbName, table, 0, true)
}

// nradAnalyze counts changes and starts ANALYZE when they are many (or now).
func (r *Registry) nradAnalyze(dbName, table string, n int, now bool) {
	r.nrad.m.Lock()

	if r.nrad.analyzes == nil {
		r.nrad.analyzes = map[string]*nradAnalyze{}
	}

	key := dbName + "\x00" + table

	a := r.nrad.analyzes[key]
	if a == nil {
		// After a restart: the table's size when its statistics were last gathered.
		a = &nradAnalyze{seen: r.nradAnalyzedRows(dbName, table)}
		r.nrad.analyzes[key] = a
	}

	a.changes += int64(n)
	start := !a.running && (now || a.changes >= analyzeEvery(a.seen))

	if start {
		a.running = true
		a.seen += a.changes
		a.changes = 0
	}

	r.nrad.m.Unlock()

	if start {
		go r.nradAnalyzeTable(dbName, table, a)
	}
}

// nradStatsReload is a table created and dropped in ANALYZE's transaction: each change of the
// schema makes every other connection of the pool read the schema again, and with it the new
// statistics, before its next statement. ANALYZE alone changes only sqlite_stat1's rows, which a
// connection reads with the schema, so every connection but the one that ran it kept planning with
// the statistics it had read before (those of an empty table, say) until the schema next changed.
const nradStatsReload = "_nrad_stats_reload"

// nradAnalyzedRows returns how many rows the table had when ANALYZE last ran (0 if never).
func (r *Registry) nradAnalyzedRows(dbName, table string) int64 {
	ctx := context.Background()

	db := r.DatabaseGetExisting(ctx, dbName)
	if db == nil {
		return 0
	}

	var rows int64

	// sqlite_stat1 exists once ANALYZE has run; each row's stat starts with the table's size.
	q := `SELECT coalesce(max(CAST(stat AS INTEGER)), 0) FROM sqlite_stat1 WHERE tbl = ?`
	if err := db.QueryRowContext(ctx, q, table).Scan(&rows); err != nil {
		return 0
	}

	return rows
}

// nradAnalyzeTable gathers the statistics of a table and its elements table.
func (r *Registry) nradAnalyzeTable(dbName, table string, a *nradAnalyze) {
	var failed bool

	defer func() {
		r.nrad.m.Lock()
		a.running = false

		// Changes counted while this ran (a bulk insert right after the index that started it) may
		// already be many: gather the statistics again for them now rather than after as many more.
		// After a failure (the table locked too long), the next change tries again.
		if failed {
			a.changes += analyzeEvery(a.seen)
		}

		again := !failed && a.changes >= analyzeEvery(a.seen)
		if again {
			a.running = true
			a.seen += a.changes
			a.changes = 0
		}

		r.nrad.m.Unlock()

		if again {
			go r.nradAnalyzeTable(dbName, table, a)
		}
	}()

	ctx := context.Background()

	db := r.DatabaseGetExisting(ctx, dbName)
	if db == nil {
		return
	}

	err := db.InTransaction(ctx, func(tx *fsql.Tx) error {
		if _, err := tx.ExecContext(ctx, `PRAGMA analysis_limit = 1000`); err != nil {
			return lazyerrors.Error(err)
		}

		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`ANALYZE %q`, table)); err != nil {
			return lazyerrors.Error(err)
		}

		var n int
		q := `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`
		if err := tx.QueryRowContext(ctx, q, ElementsTable(table)).Scan(&n); err != nil {
			return lazyerrors.Error(err)
		}

		if n > 0 {
			if _, err := tx.ExecContext(ctx, fmt.Sprintf(`ANALYZE %q`, ElementsTable(table))); err != nil {
				return lazyerrors.Error(err)
			}
		}

		for _, q := range []string{
			fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %q (x)`, nradStatsReload),
			fmt.Sprintf(`DROP TABLE %q`, nradStatsReload),
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return lazyerrors.Error(err)
			}
		}

		return nil
	})
	if err != nil {
		failed = true
		r.l.Warn("NRAD: ANALYZE failed", slog.String("table", table), slog.String("error", err.Error()))
	}
}
