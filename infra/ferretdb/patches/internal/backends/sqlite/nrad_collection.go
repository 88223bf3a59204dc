// NRAD's addition to FerretDB v1.24.2 (infra/ferretdb/patches, docs/adr/0002): the SQLite
// collection's operations with NRAD's pushdown, around upstream's (renamed upstream*).

package sqlite

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/handler/sjson"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/must"
	"github.com/FerretDB/FerretDB/internal/util/resource"
)

// Query implements backends.Collection interface.
func (c *collection) Query(ctx context.Context, params *backends.QueryParams) (*backends.QueryResult, error) {
	if params == nil || params.Nrad == nil {
		return c.upstreamQuery(ctx, params)
	}

	db := c.r.DatabaseGetExisting(ctx, c.dbName)
	if db == nil {
		return c.upstreamQuery(ctx, params)
	}

	meta, unlock, err := c.r.NradRead(ctx, c.dbName, c.name)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	if meta == nil || meta.Capped() {
		unlock()
		return c.upstreamQuery(ctx, params)
	}

	plan, err := newNradPlan(meta, params.Filter, params.Nrad)
	if err != nil {
		unlock()

		if errors.Is(err, errNradUnsafe) {
			return c.upstreamQuery(ctx, params)
		}

		return nil, lazyerrors.Error(err)
	}

	if err = plan.chooseDriver(ctx, db); err != nil {
		unlock()
		return nil, lazyerrors.Error(err)
	}

	q, args := plan.sql(meta.TableName)

	if plan.count {
		var n int64

		err = db.QueryRowContext(ctx, q, args...).Scan(&n)
		unlock()

		if err != nil {
			return nil, lazyerrors.Error(err)
		}

		return &backends.QueryResult{Iter: newNradCountIterator(n), NradCounted: true, NradCount: n}, nil
	}

	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		unlock()
		return nil, lazyerrors.Error(err)
	}

	// The first step takes the statement's snapshot; only then may the kinds change.
	iter := newNradIterator(ctx, rows)
	unlock()

	return &backends.QueryResult{Iter: iter}, nil
}

// Explain implements backends.Collection interface.
func (c *collection) Explain(ctx context.Context, params *backends.ExplainParams) (*backends.ExplainResult, error) {
	if params == nil || params.Nrad == nil {
		return c.upstreamExplain(ctx, params)
	}

	db := c.r.DatabaseGetExisting(ctx, c.dbName)
	if db == nil {
		return c.upstreamExplain(ctx, params)
	}

	meta, unlock, err := c.r.NradRead(ctx, c.dbName, c.name)
	defer unlock()

	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	if meta == nil || meta.Capped() {
		return c.upstreamExplain(ctx, params)
	}

	plan, err := newNradPlan(meta, params.Filter, params.Nrad)
	if err != nil {
		if errors.Is(err, errNradUnsafe) {
			return c.upstreamExplain(ctx, params)
		}

		return nil, lazyerrors.Error(err)
	}

	if err = plan.chooseDriver(ctx, db); err != nil {
		return nil, lazyerrors.Error(err)
	}

	q, args := plan.sql(meta.TableName)

	// In a transaction that has read the database first: EXPLAIN reads nothing, so on a connection
	// of the pool whose schema is older than the database's it would show the plan of that schema
	// (and of the statistics read with it), where a query finds the schema changed and plans again.
	queryPlan := types.MakeArray(0)

	err = db.InTransaction(ctx, func(tx *fsql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&n); err != nil {
			return lazyerrors.Error(err)
		}

		rows, err := tx.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, args...)
		if err != nil {
			return lazyerrors.Error(err)
		}

		defer rows.Close()

		for rows.Next() {
			var id, parent, notused int32
			var detail string

			if err = rows.Scan(&id, &parent, &notused, &detail); err != nil {
				return lazyerrors.Error(err)
			}

			queryPlan.Append(fmt.Sprintf("id=%d parent=%d notused=%d detail=%s", id, parent, notused, detail))
		}

		if err := rows.Err(); err != nil {
			return lazyerrors.Error(err)
		}

		return nil
	})
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	planner := must.NotFail(types.NewDocument(
		"Plan", queryPlan,
		"nradSQL", q,
		"nradExact", plan.where.exact,
		"nradCount", plan.count,
		"nradDriver", int32(plan.driver),
	))

	return &backends.ExplainResult{
		QueryPlanner:   planner,
		FilterPushdown: plan.where.sql != "",
		SortPushdown:   plan.sorted,
		LimitPushdown:  plan.limit > 0,
	}, nil
}

// InsertAll implements backends.Collection interface.
func (c *collection) InsertAll(ctx context.Context, params *backends.InsertAllParams) (*backends.InsertAllResult, error) {
	if _, err := c.r.CollectionCreate(ctx, &metadata.CollectionCreateParams{DBName: c.dbName, Name: c.name}); err != nil {
		return nil, lazyerrors.Error(err)
	}

	unlock, err := c.r.NradWrite(ctx, c.dbName, c.name, nradKinds(params.Docs))
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	res, err := c.upstreamInsertAll(ctx, params)

	unlock()
	c.nradChanged(ctx, len(params.Docs))

	return res, err
}

// UpdateAll implements backends.Collection interface.
func (c *collection) UpdateAll(ctx context.Context, params *backends.UpdateAllParams) (*backends.UpdateAllResult, error) {
	unlock, err := c.r.NradWrite(ctx, c.dbName, c.name, nradKinds(params.Docs))
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	res, err := c.upstreamUpdateAll(ctx, params)

	unlock()
	c.nradChanged(ctx, len(params.Docs))

	return res, err
}

// DeleteAll implements backends.Collection interface.
func (c *collection) DeleteAll(ctx context.Context, params *backends.DeleteAllParams) (*backends.DeleteAllResult, error) {
	res, err := c.upstreamDeleteAll(ctx, params)
	if err == nil {
		c.nradChanged(ctx, int(res.Deleted))
	}

	return res, err
}

// CreateIndexes implements backends.Collection interface.
func (c *collection) CreateIndexes(ctx context.Context, params *backends.CreateIndexesParams) (*backends.CreateIndexesResult, error) { //nolint:lll // for readability
	before := 0
	if meta := c.r.CollectionGet(ctx, c.dbName, c.name); meta != nil {
		before = len(meta.Settings.Indexes)
	}

	res, err := c.upstreamCreateIndexes(ctx, params)
	if err != nil {
		return nil, err
	}

	// Indexes that exist already are skipped (clients ask for all of theirs at every start).
	if meta := c.r.CollectionGet(ctx, c.dbName, c.name); meta == nil || len(meta.Settings.Indexes) == before {
		return res, nil
	}

	if err = c.r.NradIndexesCreated(ctx, c.dbName, c.name); err != nil {
		return nil, lazyerrors.Error(err)
	}

	// Gather statistics of the new index soon.
	if meta := c.r.CollectionGet(ctx, c.dbName, c.name); meta != nil {
		c.r.NradAnalyzeSoon(c.dbName, meta.TableName)
	}

	return res, nil
}

// Compact implements backends.Collection interface.
func (c *collection) Compact(ctx context.Context, params *backends.CompactParams) (*backends.CompactResult, error) {
	res, err := c.upstreamCompact(ctx, params)
	if err != nil || params == nil || !params.Full {
		return res, err
	}

	// VACUUM may renumber the rowids the elements table refers to.
	if err = c.r.NradRebuildElements(ctx, c.dbName, c.name); err != nil {
		return nil, lazyerrors.Error(err)
	}

	return res, nil
}

// nradChanged counts changed documents towards the next ANALYZE.
func (c *collection) nradChanged(ctx context.Context, n int) {
	if n <= 0 {
		return
	}

	if meta := c.r.CollectionGet(ctx, c.dbName, c.name); meta != nil {
		c.r.NradChanged(c.dbName, meta.TableName, n)
	}
}

// nradKinds returns the kinds of the top-level fields of documents about to be written.
func nradKinds(docs []*types.Document) map[string]uint32 {
	kinds := map[string]uint32{}
	for _, d := range docs {
		metadata.KindsOf(d, kinds)
	}

	return kinds
}

// nradIterator reads the documents of a pushed-down query. Its first row is read when it is
// created: that step takes the statement's snapshot, which must happen while the kinds the SQL
// was written for still hold (see metadata.NradRead).
type nradIterator struct {
	ctx   context.Context
	rows  *fsql.Rows // protected by m
	token *resource.Token
	m     sync.Mutex
	ahead bool // rows is on a row not yet returned
}

// newNradIterator returns an iterator over rows, stepping to the first one.
func newNradIterator(ctx context.Context, rows *fsql.Rows) types.DocumentsIterator {
	iter := &nradIterator{ctx: ctx, rows: rows, token: resource.NewToken()}
	resource.Track(iter, iter.token)

	iter.ahead = rows.Next()

	return iter
}

// Next implements iterator.Interface.
func (iter *nradIterator) Next() (struct{}, *types.Document, error) {
	iter.m.Lock()
	defer iter.m.Unlock()

	var unused struct{}

	if iter.rows == nil {
		return unused, nil, iterator.ErrIteratorDone
	}

	if err := context.Cause(iter.ctx); err != nil {
		iter.close()
		return unused, nil, lazyerrors.Error(err)
	}

	if !iter.ahead && !iter.rows.Next() {
		err := iter.rows.Err()

		iter.close()

		if err == nil {
			err = iterator.ErrIteratorDone
		}

		return unused, nil, lazyerrors.Error(err)
	}

	iter.ahead = false

	var b []byte
	if err := iter.rows.Scan(&b); err != nil {
		iter.close()
		return unused, nil, lazyerrors.Error(err)
	}

	doc, err := sjson.Unmarshal(b)
	if err != nil {
		iter.close()
		return unused, nil, lazyerrors.Error(err)
	}

	return unused, doc, nil
}

// Close implements iterator.Interface.
func (iter *nradIterator) Close() {
	iter.m.Lock()
	defer iter.m.Unlock()

	iter.close()
}

func (iter *nradIterator) close() {
	if iter.rows != nil {
		iter.rows.Close()
		iter.rows = nil
	}

	resource.Untrack(iter, iter.token)
}

// nradCountIterator returns n empty documents: a count computed in SQL, for a caller that only
// counts what it reads (see backends.NradQuery.Count).
type nradCountIterator struct {
	m    sync.Mutex
	left int64
}

func newNradCountIterator(n int64) types.DocumentsIterator {
	return &nradCountIterator{left: n}
}

// Next implements iterator.Interface.
func (iter *nradCountIterator) Next() (struct{}, *types.Document, error) {
	iter.m.Lock()
	defer iter.m.Unlock()

	if iter.left <= 0 {
		return struct{}{}, nil, iterator.ErrIteratorDone
	}

	iter.left--

	return struct{}{}, types.MakeDocument(0), nil
}

// Close implements iterator.Interface.
func (iter *nradCountIterator) Close() {
	iter.m.Lock()
	defer iter.m.Unlock()

	iter.left = 0
}

// check interfaces
var (
	_ types.DocumentsIterator = (*nradIterator)(nil)
	_ types.DocumentsIterator = (*nradCountIterator)(nil)
)

// nradIndexSizes returns the sizes that collStats read from dbstat, followed by a size of 0 for
// each index of the collection that has no SQLite index (metadata.dropWholeValueIndexes: its
// field's elements are kept in the elements table).
func nradIndexSizes(coll *metadata.Collection, found []backends.IndexSize) []backends.IndexSize {
	for _, index := range coll.Settings.Indexes {
		if !slices.ContainsFunc(found, func(f backends.IndexSize) bool { return f.Name == index.Name }) {
			found = append(found, backends.IndexSize{Name: index.Name})
		}
	}

	return found
}
