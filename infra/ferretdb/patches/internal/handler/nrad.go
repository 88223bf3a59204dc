// NRAD's addition to FerretDB v1.24.2 (infra/ferretdb/patches, docs/adr/0002): which commands
// may hand their filter, sort, limit and count down to the backend (backends.NradQuery).

package handler

import (
	"math"
	"math/big"
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

// nradCountedGroup returns, for a pipeline of a $match and then one $group whose key is a constant
// and whose every accumulator sums a constant number (countDocuments sends exactly that), the
// pipeline's result as a function of the number of matching documents: what upstream's $group
// makes of that many empty documents, without them. It returns nil for any other pipeline.
//
// Upstream's $group (stages/group.go) gives no document for no input, else one: _id, then each
// accumulator in order; the accumulators share one iterator of the group's documents, so the
// first sums them all and every later one finds it spent and sums nothing (int32 0).
func nradCountedGroup(stages []any) func(n int64) []*types.Document {
	if len(stages) != 2 || !nradFirstMatch(stages) {
		return nil
	}

	d, ok := stages[1].(*types.Document)
	if !ok || d.Len() != 1 || d.Command() != "$group" {
		return nil
	}

	group, ok := must.NotFail(d.Get("$group")).(*types.Document)
	if !ok || !nradConstantGroup(group) {
		return nil
	}

	keys := group.Keys()
	values := group.Values()

	seen := make(map[string]struct{}, len(keys))
	for _, k := range keys {
		if _, dup := seen[k]; dup {
			return nil // upstream's error, upstream's way
		}

		seen[k] = struct{}{}
	}

	return func(n int64) []*types.Document {
		if n <= 0 {
			return nil
		}

		doc := must.NotFail(types.NewDocument("_id", values[0]))

		for i, k := range keys[1:] {
			var v any = int32(0)

			if i == 0 {
				v = nradSum(must.NotFail(group.Get(k)).(*types.Document), n)
			}

			doc.Set(k, v)
		}

		return []*types.Document{doc}
	}
}

// nradSum is upstream's {$sum: c} over n documents (accumulators/sum.go, aggregations.SumNumbers):
// integers summed exactly, int32 while the sum fits and no int64 was added, else int64, else (past
// int64) a double; doubles added one by one, in order, from zero.
func nradSum(acc *types.Document, n int64) any {
	switch c := must.NotFail(acc.Get("$sum")).(type) {
	case float64:
		var sum float64
		for i := int64(0); i < n; i++ {
			sum += c
		}

		return sum
	case int32:
		return nradIntSum(big.NewInt(int64(c)), n, false)
	case int64:
		return nradIntSum(big.NewInt(c), n, true)
	default:
		panic("nradSum: not a number") // nradConstantGroup admits numbers only
	}
}

// nradIntSum is SumNumbers of n copies of c (an int64 among them when wide).
func nradIntSum(c *big.Int, n int64, wide bool) any {
	total := new(big.Int).Mul(c, big.NewInt(n))

	if !total.IsInt64() {
		f, _ := new(big.Float).SetInt(total).Float64()

		return f
	}

	v := total.Int64()

	if !wide && v <= math.MaxInt32 && v >= math.MinInt32 {
		return int32(v)
	}

	return v
}
