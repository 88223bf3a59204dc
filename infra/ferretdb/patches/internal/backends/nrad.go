// NRAD's addition to FerretDB v1.24.2 (infra/ferretdb/patches, docs/adr/0002): what a caller
// lets the backend push down beyond upstream's `{_id: value}` filter and `$natural` sort.

package backends

import "github.com/FerretDB/FerretDB/internal/types"

// NradQuery, set by the patched handlers on QueryParams and ExplainParams, lets a backend push
// down the whole filter (as SQL that returns every matching document, possibly more), and, where
// that SQL is exactly the filter, the sort, a limit and a count.
//
// A caller that sets it promises that:
//   - Filter is the command's whole filter (no field removed from it);
//   - it applies Filter, Sort and its skip and limit to what the backend returns, as before;
//   - the filter is applied before anything that depends on the order of the documents, so that a
//     backend returning the matching documents in their natural order gives exactly the same
//     answer as one returning all documents.
type NradQuery struct {
	// Sort is the command's validated sort; nil or empty for natural order.
	Sort *types.Document

	// Limit is how many of the sorted, filtered documents the caller reads at most (skip + limit);
	// 0 means all of them.
	Limit int64

	// Count says that only the number of matching documents matters: a backend that can count
	// exactly answers with that many empty documents and sets QueryResult.NradCounted.
	Count bool

	// Counted, set with Count, gives the caller's result from the number of matching documents
	// when a backend counted (QueryResult.NradCount), instead of reading that many empty documents.
	Counted func(n int64) []*types.Document

	// Projection is the command's projection: the backend may leave out of each document the
	// fields that neither it, nor the filter, nor the sort reads.
	Projection *types.Document
}
