// NRAD's addition to FerretDB v1.24.2 (infra/ferretdb/patches, docs/adr/0002): which commands
// may hand their filter, sort, limit and count down to the backend (backends.NradQuery).

package handler

import (
	"strings"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// nradWholeFilter reports whether a filter reaches the backend whole: upstream removes top-level
// dotted keys from the filter of find and aggregate before pushing it down.
func nradWholeFilter(filter *types.Document) bool {
	for _, k := range filter.Keys() {
		if strings.ContainsRune(k, '.') {
			return false
		}
	}

	return true
}

// nradFirstMatch reports whether a pipeline starts with $match, so that its filter applies to the
// documents in their natural order, before any stage that depends on their order or number.
func nradFirstMatch(stages []any) bool {
	if len(stages) == 0 {
		return false
	}

	d, ok := stages[0].(*types.Document)

	return ok && d.Len() == 1 && d.Command() == "$match"
}

// nradCountsOnly reports whether a pipeline that starts with $match reads nothing of the matching
// documents but how many they are: $skip and $limit stages, then a $count stage or a $group
// whose key is a constant and whose every accumulator sums a constant number (as countDocuments
// sends). Then the backend may answer with as many empty documents.
func nradCountsOnly(stages []any) bool {
	if !nradFirstMatch(stages) {
		return false
	}

	for _, s := range stages[1:] {
		d, ok := s.(*types.Document)
		if !ok || d.Len() != 1 {
			return false
		}

		switch d.Command() {
		case "$skip", "$limit":
			continue
		case "$count":
			_, ok = must.NotFail(d.Get("$count")).(string)
			return ok
		case "$group":
			group, ok := must.NotFail(d.Get("$group")).(*types.Document)
			return ok && nradConstantGroup(group)
		default:
			return false
		}
	}

	return false
}

// nradConstantGroup reports whether a $group's key is a constant and its every accumulator is
// {$sum: number}.
func nradConstantGroup(group *types.Document) bool {
	keys := group.Keys()
	values := group.Values()

	if len(keys) == 0 || keys[0] != "_id" {
		return false
	}

	for i, k := range keys {
		v := values[i]

		if k == "_id" {
			switch v.(type) {
			case int32, int64, float64, bool, types.NullType:
				continue
			default:
				return false
			}
		}

		acc, ok := v.(*types.Document)
		if !ok || acc.Len() != 1 || acc.Command() != "$sum" {
			return false
		}

		switch must.NotFail(acc.Get("$sum")).(type) {
		case int32, int64, float64:
		default:
			return false
		}
	}

	return true
}
