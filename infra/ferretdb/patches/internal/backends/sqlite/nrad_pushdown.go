// NRAD's addition to FerretDB v1.24.2 (infra/ferretdb/patches, docs/adr/0002): a filter, sort
// and limit of a query as SQL on the SQLite backend.
//
// The SQL is written with the very expression text of FerretDB's indexes
// (`_ferretdb_sjson->"field"`), so SQLite can use them. A filter condition becomes SQL only when
// the collection's kinds (metadata.NradSettings) guarantee that the SQL keeps every document the
// condition matches; the handler still applies the whole filter to what SQL returns. The SQL is
// "exact" (it returns no other document) only when no other kind of value shares the JSON text
// compared; only then are LIMIT and count(*) computed in SQL.

package sqlite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/handler/sjson"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// errNradUnsafe says that the filter has a shape whose evaluation by the handler may fail (an
// unknown or malformed operator, an invalid regular expression, a dotted path): then nothing is
// pushed down, so that the handler meets exactly the documents it met before the patch (and fails
// the same way).
var errNradUnsafe = errors.New("nrad: filter not pushed down")

// nradCond is a filter condition as SQL.
type nradCond struct {
	sql   string // "" for TRUE (nothing pushed down)
	args  []any
	exact bool // SQL returns exactly the documents the condition matches

	// in, for an equality written as in[0] + "= ?" + in[1], lets several equalities of the same
	// expression be written as one IN list (see nradTranslator.in).
	in [2]string

	// drive, for a condition that holds only for rows an elements table names (an array field's
	// equality, IN list or prefix, or an OR of those), the subqueries naming those rows: how many
	// they name decides whether the query starts from them (nradPlan.chooseDriver).
	drive []nradRows

	// onDoc, for a condition with drive, is the same condition read from the row's document
	// (ElementsOnDocument), taking the same arguments: a filter on rows another condition found
	// costs a look at each of those rows, where `rowid IN (…)` first lists every row the elements
	// name (a prefix of one letter: a third of the collection). onDocIn is its template for an
	// equality, as in is.
	onDoc   string
	onDocIn [2]string

	// parts, of a conjunction, are its conditions as written (nradAnd), nested conjunctions flattened.
	parts []nradCond
}

// nradRows is a subquery of an elements table, `SELECT r FROM … WHERE …`, with its arguments.
type nradRows struct {
	sql  string
	args []any
}

var (
	nradTrue  = nradCond{exact: true}
	nradFalse = nradCond{sql: "0", exact: true}
	nradSome  = nradCond{} // TRUE, keeping documents the condition does not match
)

// nradAnd combines conditions that must all hold. Conditions that read no stored document (an
// elements table's rowids) are written first: SQLite tests the conditions it does not loop on in
// the order written, and a document's field is read from its stored JSON, so a row that the
// elements already rule out is never read (two name words: thousands of rows with the first, a
// handful with both, only those read). The order changes which rows are read, not which match.
func nradAnd(conds ...nradCond) nradCond {
	res := nradTrue

	var cheap, costly []nradCond

	for _, c := range conds {
		res.exact = res.exact && c.exact

		switch c.sql {
		case "":
			continue
		case "0":
			return nradCond{sql: "0", exact: res.exact && c.exact}
		}

		for _, part := range c.conjuncts() {
			if strings.Contains(part.sql, metadata.DefaultColumn) {
				costly = append(costly, part)
			} else {
				cheap = append(cheap, part)
			}
		}
	}

	res.parts = append(cheap, costly...)
	texts := make([]string, 0, len(res.parts))

	// The rows a conjunction holds for are among those of any of its parts: the first with elements
	// names them (for a disjunction of conjunctions, nradOr).
	for _, c := range res.parts {
		if len(c.drive) > 0 {
			res.drive = c.drive
			break
		}
	}

	for _, c := range res.parts {
		texts = append(texts, "("+c.sql+")")
		res.args = append(res.args, c.args...)
	}

	res.sql = strings.Join(texts, " AND ")

	onDoc := make([]string, 0, len(res.parts))

	for _, c := range res.parts {
		if c.onDoc == "" {
			onDoc = nil
			break
		}

		onDoc = append(onDoc, "("+c.onDoc+")")
	}

	if len(onDoc) > 0 {
		res.onDoc = strings.Join(onDoc, " AND ")
	}

	return res
}

// nradOr combines conditions of which one must hold.
func nradOr(conds ...nradCond) nradCond {
	res := nradCond{sql: "0", exact: true}

	var parts, onDoc []string

	driven := true

	for _, c := range conds {
		if c.sql == "" {
			return nradCond{exact: c.exact}
		}

		res.exact = res.exact && c.exact

		if c.sql == "0" {
			continue
		}

		parts = append(parts, "("+c.sql+")")
		res.args = append(res.args, c.args...)
		res.drive = append(res.drive, c.drive...)
		driven = driven && len(c.drive) > 0 && c.onDoc != ""
		onDoc = append(onDoc, "("+c.onDoc+")")
	}

	if len(parts) > 0 {
		res.sql = strings.Join(parts, " OR ")
	}

	if !driven || len(parts) == 0 {
		res.drive = nil // some branch holds for rows no elements table names
	} else {
		res.onDoc = strings.Join(onDoc, " OR ")
	}

	return res
}

// elementsRowid stands for the rowid an elements-table condition compares (see nradPlan.sql).
const elementsRowid = "NRAD_ROWID"

// nradTranslator writes the conditions of one collection.
type nradTranslator struct {
	kinds    map[string]uint32
	multikey map[string]int
	elements string // the elements table
	table    string // the collection's table, quoted

	// fields are the top-level fields the filter reads (the handler's filter needs them).
	fields map[string]struct{}
}

func newNradTranslator(c *metadata.Collection) *nradTranslator {
	return &nradTranslator{
		kinds:    c.Settings.Nrad.Kinds,
		multikey: c.Settings.Nrad.Multikey,
		elements: metadata.ElementsTable(c.TableName),
		table:    fmt.Sprintf("%q", c.TableName),
		fields:   map[string]struct{}{},
	}
}

// column is the stored JSON text of a top-level field: the expression of FerretDB's indexes.
func column(field string) string {
	return fmt.Sprintf("%s->%q", metadata.DefaultColumn, field)
}

// filter translates a filter document (its pairs all hold).
func (t *nradTranslator) filter(f *types.Document) (nradCond, error) {
	keys := f.Keys()
	values := f.Values()
	conds := make([]nradCond, 0, len(keys))

	for i, k := range keys {
		c, err := t.pair(k, values[i])
		if err != nil {
			return nradCond{}, err
		}

		conds = append(conds, c)
	}

	return nradAnd(conds...), nil
}

// pair translates one pair of a filter document.
func (t *nradTranslator) pair(key string, value any) (nradCond, error) {
	if strings.HasPrefix(key, "$") {
		switch key {
		case "$comment":
			return nradTrue, nil
		case "$and", "$or", "$nor":
			arr, ok := value.(*types.Array)
			if !ok || arr.Len() == 0 {
				return nradCond{}, errNradUnsafe
			}

			conds := make([]nradCond, arr.Len())

			for i := 0; i < arr.Len(); i++ {
				doc, ok := must.NotFail(arr.Get(i)).(*types.Document)
				if !ok {
					return nradCond{}, errNradUnsafe
				}

				c, err := t.filter(doc)
				if err != nil {
					return nradCond{}, err
				}

				conds[i] = c
			}

			switch key {
			case "$and":
				return nradAnd(conds...), nil
			case "$or":
				or := nradOr(conds...)
				if bound := t.keysetBound(arr); bound.sql != "" && or.sql != "" {
					// Implied by the $or: it only lets SQLite start the index range at the bound.
					return nradCond{sql: bound.sql + " AND (" + or.sql + ")", args: append(bound.args, or.args...), exact: or.exact}, nil
				}

				return or, nil
			default:
				return nradSome, nil
			}
		default:
			return nradCond{}, errNradUnsafe
		}
	}

	if strings.ContainsRune(key, '.') {
		return nradCond{}, errNradUnsafe
	}

	t.fields[key] = struct{}{}

	var c nradCond
	var err error

	switch v := value.(type) {
	case *types.Document:
		c, err = t.expression(key, v)
	case types.Regex:
		c, err = t.regex(key, v)
	case *types.Array:
		c = nradSome // an array value is compared whole
	default:
		c = t.eq(key, v)
	}

	if err != nil {
		return nradCond{}, err
	}

	if !metadata.PlainField(key) {
		return nradSome, nil
	}

	return c, nil
}

// expression translates {field: {$op: value, ...}} (or {field: {document}}).
func (t *nradTranslator) expression(field string, expr *types.Document) (nradCond, error) {
	keys := expr.Keys()
	values := expr.Values()

	if len(keys) == 0 {
		return nradSome, nil
	}

	conds := make([]nradCond, 0, len(keys))

	for i, op := range keys {
		v := values[i]

		if !strings.HasPrefix(op, "$") {
			// The handler compares the field with the document here and looks no further.
			conds = append(conds, nradSome)
			break
		}

		switch op {
		case "$eq":
			switch v.(type) {
			case types.Regex:
				return nradCond{}, errNradUnsafe
			case *types.Document, *types.Array:
				conds = append(conds, nradSome)
			default:
				conds = append(conds, t.eq(field, v))
			}

		case "$ne":
			if _, ok := v.(types.Regex); ok {
				return nradCond{}, errNradUnsafe
			}

			conds = append(conds, nradSome)

		case "$gt", "$gte", "$lt", "$lte":
			if _, ok := v.(types.Regex); ok {
				return nradCond{}, errNradUnsafe
			}

			conds = append(conds, t.compare(field, op, v))

		case "$in", "$nin":
			arr, ok := v.(*types.Array)
			if !ok {
				return nradCond{}, errNradUnsafe
			}

			in := make([]nradCond, 0, arr.Len())

			for j := 0; j < arr.Len(); j++ {
				switch e := must.NotFail(arr.Get(j)).(type) {
				case types.Regex:
					if !nradRegexValid(e) {
						return nradCond{}, errNradUnsafe
					}

					in = append(in, nradSome)
				case *types.Document:
					for _, k := range e.Keys() {
						if strings.HasPrefix(k, "$") {
							return nradCond{}, errNradUnsafe
						}
					}

					in = append(in, nradSome)
				case *types.Array:
					in = append(in, nradSome)
				default:
					in = append(in, t.eq(field, e))
				}
			}

			if op == "$nin" {
				conds = append(conds, nradSome)
				break
			}

			conds = append(conds, t.in(in))

		case "$exists":
			conds = append(conds, nradSome)

		case "$regex":
			var options string

			if o, ok := expr.Map()["$options"]; ok {
				if options, ok = o.(string); !ok {
					return nradCond{}, errNradUnsafe
				}
			}

			var re types.Regex

			switch v := v.(type) {
			case string:
				re = types.Regex{Pattern: v, Options: options}
			case types.Regex:
				if options != "" && v.Options != "" {
					return nradCond{}, errNradUnsafe
				}

				re = v
				if options != "" {
					re.Options = options
				}
			default:
				return nradCond{}, errNradUnsafe
			}

			c, err := t.regex(field, re)
			if err != nil {
				return nradCond{}, err
			}

			conds = append(conds, c)

		case "$options":
			if !expr.Has("$regex") {
				return nradCond{}, errNradUnsafe
			}

		default:
			return nradCond{}, errNradUnsafe
		}
	}

	return nradAnd(conds...), nil
}

// keysetBound returns, for the $or of keyset paging — [{f: {$lt: v}}, {f: v, …}] ($lte, $gt,
// $gte alike) — the range it implies on f (f <= v, or f >= v) as SQL, or nothing. Every document
// either branch matches is in that range, so adding it changes nothing but the plan: SQLite reads
// the index from the bound on instead of testing the $or on every entry before it.
func (t *nradTranslator) keysetBound(branches *types.Array) nradCond {
	if branches.Len() != 2 {
		return nradCond{}
	}

	first, _ := must.NotFail(branches.Get(0)).(*types.Document)
	second, _ := must.NotFail(branches.Get(1)).(*types.Document)

	if first == nil || second == nil || first.Len() != 1 || second.Len() < 2 {
		return nradCond{}
	}

	field := first.Keys()[0]

	expr, ok := must.NotFail(first.Get(field)).(*types.Document)
	if !ok || expr.Len() != 1 || second.Keys()[0] != field {
		return nradCond{}
	}

	var op string

	switch expr.Command() {
	case "$lt", "$lte":
		op = "$lte"
	case "$gt", "$gte":
		op = "$gte"
	default:
		return nradCond{}
	}

	bound := must.NotFail(expr.Get(expr.Command()))
	if types.Compare(bound, must.NotFail(second.Get(field))) != types.Equal {
		return nradCond{}
	}

	switch bound.(type) {
	case time.Time, types.ObjectID:
	default:
		return nradCond{}
	}

	return t.compare(field, op, bound)
}

// in combines the equalities of $in, as one IN list where they all compare the same expression.
func (t *nradTranslator) in(conds []nradCond) nradCond {
	if len(conds) < 2 {
		return nradOr(conds...)
	}

	res := nradCond{exact: true}
	marks := make([]string, len(conds))

	for i, c := range conds {
		if c.in[0] == "" || c.in != conds[0].in {
			return nradOr(conds...)
		}

		res.exact = res.exact && c.exact
		res.args = append(res.args, c.args...)
		marks[i] = "?"
	}

	res.sql = conds[0].in[0] + "IN (" + strings.Join(marks, ", ") + ")" + conds[0].in[1]

	if len(conds[0].drive) > 0 {
		sub := strings.TrimPrefix(conds[0].in[0], elementsRowid+" IN (")
		res.drive = []nradRows{{sql: sub + "IN (" + strings.Join(marks, ", ") + ")", args: slices.Clone(res.args)}}
		res.onDoc = conds[0].onDocIn[0] + "IN (" + strings.Join(marks, ", ") + ")" + conds[0].onDocIn[1]
	}

	return res
}

// Kinds that share the JSON text of a string (or of an ObjectID's hex digits).
const (
	kindsTextual = metadata.KindString | metadata.KindObjectID | metadata.KindBinary | metadata.KindRegex
	kindsNumeric = metadata.KindNumSafe | metadata.KindNumOdd | metadata.KindDate13 | metadata.KindDateOther | metadata.KindTimestamp
)

// eq translates equality of a field with a scalar value.
func (t *nradTranslator) eq(field string, v any) nradCond {
	if !metadata.PlainField(field) {
		return nradSome
	}

	k, known := t.kinds[field]
	if !known {
		// No stored document ever had the field: only null (missing) can match.
		if _, ok := v.(types.NullType); ok {
			return nradTrue
		}

		return nradFalse
	}

	if k == metadata.KindUnknown {
		return nradSome
	}

	elements := k >> metadata.KindElementShift

	if k&metadata.KindArray != 0 {
		// Arrays match by their elements: only strings (and ObjectIDs) are indexed, in the
		// elements table, when the field has a single-field index.
		id, ok := t.multikey[field]
		if !ok {
			return nradSome
		}

		var text string
		var same uint32

		switch v := v.(type) {
		case string:
			text, same = v, metadata.KindString
		case types.ObjectID:
			text, same = fmt.Sprintf("%x", v[:]), metadata.KindObjectID
		default:
			return nradSome
		}

		sub := fmt.Sprintf("SELECT r FROM %q WHERE f = %d AND v ", t.elements, id)
		in := [2]string{elementsRowid + " IN (" + sub, ")"}
		onDocIn := [2]string{"EXISTS (SELECT 1 " + metadata.ElementsOnDocument(t.table, field) + " AND j.value ", ")"}

		return nradCond{
			sql:     in[0] + "= ?" + in[1],
			args:    []any{text},
			exact:   (k|elements)&kindsTextual&^same == 0,
			in:      in,
			drive:   []nradRows{{sql: sub + "= ?", args: []any{text}}},
			onDoc:   onDocIn[0] + "= ?" + onDocIn[1],
			onDocIn: onDocIn,
		}
	}

	col := column(field)
	equal := func(text string, exact bool) nradCond {
		return nradCond{sql: col + " = ?", args: []any{text}, exact: exact, in: [2]string{col + " ", ""}}
	}

	switch v := v.(type) {
	case string:
		if !utf8.ValidString(v) {
			return nradSome
		}

		return equal(nradJSON(v), k&kindsTextual&^metadata.KindString == 0)
	case types.ObjectID:
		return equal(nradJSON(v), k&kindsTextual&^metadata.KindObjectID == 0)
	case bool:
		return equal(nradJSON(v), true)
	case time.Time:
		return equal(nradJSON(v), k&kindsNumeric&^(metadata.KindDate13|metadata.KindDateOther) == 0)
	case int32, int64, float64:
		text, ok := nradNumber(v)
		if !ok || k&metadata.KindNumOdd != 0 {
			return nradSome
		}

		return equal(text, k&(metadata.KindDate13|metadata.KindDateOther|metadata.KindTimestamp) == 0)
	case types.NullType:
		return nradCond{sql: col + " IS NULL OR " + col + " = 'null'", exact: true}
	default:
		return nradSome
	}
}

// compare translates $gt, $gte, $lt and $lte on ObjectIDs and on dates with 13-digit
// milliseconds, whose JSON texts sort as the values do.
func (t *nradTranslator) compare(field, op string, v any) nradCond {
	if !metadata.PlainField(field) {
		return nradSome
	}

	switch v.(type) {
	case types.ObjectID, time.Time:
	default:
		return nradSome
	}

	k, known := t.kinds[field]
	if !known {
		return nradFalse // a missing field compares as null: another type than the bound's
	}

	if k == metadata.KindUnknown || k&metadata.KindArray != 0 {
		return nradSome
	}

	col := column(field)
	sqlOp := map[string]string{"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}[op]

	var low, high string // the JSON texts of the values of the bound's type
	var exact bool

	switch v := v.(type) {
	case types.ObjectID:
		// JSON strings: '"' ... and below '#'.
		low, high = `"`, `#`
		exact = k&kindsTextual&^metadata.KindObjectID == 0
	case time.Time:
		if metadata.KindOf(v) != metadata.KindDate13 || k&metadata.KindDateOther != 0 {
			return nradSome
		}

		low, high = "1000000000000", "9999999999999"
		exact = k&kindsNumeric&^metadata.KindDate13 == 0
	default:
		return nradSome
	}

	bound := nradJSON(v)

	var sql string
	if strings.HasPrefix(sqlOp, ">") {
		sql = fmt.Sprintf("%s %s ? AND %s <= ?", col, sqlOp, col)
		if high == "#" {
			sql = fmt.Sprintf("%s %s ? AND %s < ?", col, sqlOp, col)
		}

		return nradCond{sql: sql, args: []any{bound, high}, exact: exact}
	}

	sql = fmt.Sprintf("%s %s ? AND %s >= ?", col, sqlOp, col)

	return nradCond{sql: sql, args: []any{bound, low}, exact: exact}
}

// regex translates a regular expression anchored at the start of the string with a literal
// prefix, as a range of texts; only `^literal` alone is exact.
func (t *nradTranslator) regex(field string, re types.Regex) (nradCond, error) {
	if !nradRegexValid(re) {
		return nradCond{}, errNradUnsafe
	}

	if !metadata.PlainField(field) {
		return nradSome, nil
	}

	prefix, complete := nradLiteralPrefix(re)
	if prefix == "" || strings.ContainsRune(prefix, 0) {
		return nradSome, nil
	}

	k, known := t.kinds[field]
	if !known {
		return nradFalse, nil // a missing field is no string
	}

	// A stored regular expression matches an equal one: not a range of texts.
	if k == metadata.KindUnknown || k&metadata.KindRegex != 0 {
		return nradSome, nil
	}

	elements := k >> metadata.KindElementShift

	if k&metadata.KindArray != 0 {
		id, ok := t.multikey[field]
		if !ok || elements&metadata.KindRegex != 0 {
			return nradSome, nil
		}

		sub := fmt.Sprintf("SELECT r FROM %q WHERE f = %d AND v >= ? AND v < ?", t.elements, id)
		args := []any{prefix, nradSuccessor(prefix)}

		return nradCond{
			sql:   elementsRowid + " IN (" + sub + ")",
			args:  args,
			exact: complete && (k|elements)&kindsTextual&^metadata.KindString == 0,
			drive: []nradRows{{sql: sub, args: slices.Clone(args)}},
			onDoc: "EXISTS (SELECT 1 " + metadata.ElementsOnDocument(t.table, field) + " AND j.value >= ? AND j.value < ?)",
		}, nil
	}

	// The JSON text of a string starting with the prefix starts with the prefix's JSON text
	// (without its closing quote), and only then: Go escapes each character on its own.
	low := strings.TrimSuffix(nradJSON(prefix), `"`)
	col := column(field)

	return nradCond{
		sql:   fmt.Sprintf("%s >= ? AND %s < ?", col, col),
		args:  []any{low, nradSuccessor(low)},
		exact: complete && k&kindsTextual&^metadata.KindString == 0,
	}, nil
}

// nradRegexValid reports whether the handler can use the regular expression without an error.
func nradRegexValid(re types.Regex) bool {
	for _, o := range re.Options {
		if !slices.Contains([]rune{'i', 'm', 's'}, o) {
			return false // an unknown option, or 'x' (not implemented), is an error
		}
	}

	_, err := re.Compile()

	return err == nil
}

// nradLiteralPrefix returns the literal text every match of the regular expression starts with
// at the start of the string (empty if it is not anchored there, or ignores case), and whether
// the expression is that anchored literal and nothing more.
func nradLiteralPrefix(re types.Regex) (string, bool) {
	expr := re.Pattern
	if re.Options != "" {
		expr = "(?" + re.Options + ")" + expr
	}

	parsed, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return "", false
	}

	var parts []*syntax.Regexp

	switch parsed.Op {
	case syntax.OpConcat:
		parts = parsed.Sub
	default:
		parts = []*syntax.Regexp{parsed}
	}

	if len(parts) < 2 || parts[0].Op != syntax.OpBeginText {
		return "", false
	}

	lit := parts[1]
	if lit.Op != syntax.OpLiteral || lit.Flags&syntax.FoldCase != 0 {
		return "", false
	}

	return string(lit.Rune), len(parts) == 2
}

// nradSuccessor returns the smallest text above every text starting with s (s is not empty).
func nradSuccessor(s string) string {
	b := []byte(s)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}

	return string(b) + "\xff" // not reached for UTF-8 text
}

// nradJSON returns a value's stored JSON text.
func nradJSON(v any) string {
	return string(must.NotFail(sjson.MarshalSingleValue(v)))
}

// nradNumber returns the JSON text a number has when stored as any numeric type, if that text is
// the same for every type (see metadata.KindNumSafe).
func nradNumber(v any) (string, bool) {
	switch v := v.(type) {
	case int32:
		return strconv.FormatInt(int64(v), 10), true
	case int64:
		if v < -1<<53 || v > 1<<53 {
			return "", false
		}

		return strconv.FormatInt(v, 10), true
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1<<53 {
			return "", false
		}

		if v == math.Trunc(v) {
			return strconv.FormatInt(int64(v), 10), true // also -0 → "0"
		}

		b, err := json.Marshal(v)
		if err != nil {
			return "", false
		}

		return string(b), true
	default:
		return "", false
	}
}

// nradOrderBy returns the ORDER BY of a sort whose every key the kinds let SQL sort as the
// handler does (ObjectIDs; dates with 13-digit milliseconds; missing values first, as nulls) and
// which orders documents totally (it includes _id), or "" if there is none.
func (t *nradTranslator) orderBy(sort *types.Document) string {
	if sort.Len() == 0 {
		return ""
	}

	keys := sort.Keys()
	values := sort.Values()
	terms := make([]string, 0, len(keys))

	for i, key := range keys {
		if !metadata.PlainField(key) {
			return ""
		}

		k := t.kinds[key]
		if k != 0 && k&^metadata.KindObjectID != 0 && k&^metadata.KindDate13 != 0 {
			return ""
		}

		var dir string

		switch values[i] {
		case int64(1), int32(1), float64(1):
		case int64(-1), int32(-1), float64(-1):
			dir = " DESC"
		default:
			return ""
		}

		terms = append(terms, column(key)+dir)

		if key == "_id" {
			return " ORDER BY " + strings.Join(terms, ", ")
		}
	}

	return ""
}

// nradPlan is the SQL of one query.
type nradPlan struct {
	where   nradCond
	orderBy string   // pushed-down sort, or natural order
	sorted  bool     // orderBy is the query's sort
	limit   int64    // LIMIT, or 0
	count   bool     // count(*) instead of the documents
	strip   []string // fields left out of the documents read (nobody reads them)

	// driver is the part of the where (nradCond.parts; 0 for a where of one condition) whose
	// elements the query starts from, as chooseDriver chose: nradDriveDefault when it did not
	// choose, nradDriveWalk to walk a column's index instead.
	driver int

	// sizes are the rows each part with elements names, as chooseDriver counted them (at most
	// nradProbeCap); nil when it did not count.
	sizes map[int]int64
}

const (
	nradDriveDefault = -1
	nradDriveWalk    = -2
)

var (
	// nradProbeCap is how many rows of a driving candidate's subqueries are counted at most.
	nradProbeCap = nradThreshold("NRAD_PUSHDOWN_PROBE_CAP", 4000)

	// nradDriveMax is the most rows a query with a limit starts from beside a column's index: a
	// page reads the index's entries in order until it is full, each cheap, where starting from
	// elements reads each of their documents and sorts them (a surname on 3,000 records of three
	// agencies, a page of one agency's 100,000: 33 ms walking its index, 80 ms from the 3,000).
	nradDriveMax = nradThreshold("NRAD_PUSHDOWN_DRIVE_MAX", 1000)
)

// nradThreshold is a planning threshold, or the value the environment variable gives it: the
// differential test lowers them so that its hundred documents take every plan.
func nradThreshold(name string, fallback int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv(name), 10, 64); err == nil && v > 0 {
		return v
	}

	return fallback
}

// newNradPlan plans a query; errNradUnsafe means: push nothing down.
func newNradPlan(c *metadata.Collection, filter *types.Document, q *backends.NradQuery) (*nradPlan, error) {
	t := newNradTranslator(c)

	where, err := t.filter(filter)
	if err != nil {
		return nil, err
	}

	p := &nradPlan{where: where, orderBy: " ORDER BY rowid", driver: nradDriveDefault}

	if ob := t.orderBy(q.Sort); ob != "" {
		p.orderBy = ob
		p.sorted = true
	}

	if where.exact {
		p.count = q.Count

		if q.Limit > 0 && (p.sorted || q.Sort.Len() == 0) {
			p.limit = q.Limit
		}
	}

	p.strip = t.unread(q.Projection, q.Sort)

	return p, nil
}

// unread returns the plain fields of the collection that no document returned needs: the
// projection leaves them out, and neither the filter (applied again by the handler) nor the sort
// reads them. Reading a stored document costs with its size; a list that shows a few fields of
// documents carrying large arrays (search tokens) saves most of it.
func (t *nradTranslator) unread(projection, sort *types.Document) []string {
	if projection.Len() == 0 {
		return nil
	}

	keep := map[string]struct{}{"_id": {}}
	for f := range t.fields {
		keep[f] = struct{}{}
	}

	for _, f := range sort.Keys() {
		keep[f] = struct{}{}
	}

	included := map[string]struct{}{}
	excluded := map[string]struct{}{}

	keys := projection.Keys()
	values := projection.Values()

	for i, k := range keys {
		if !metadata.PlainField(k) {
			return nil // a path or an operator: not something to reason about here
		}

		var on bool

		switch v := values[i].(type) {
		case bool:
			on = v
		case int32:
			on = v != 0
		case int64:
			on = v != 0
		case float64:
			on = v != 0
		default:
			return nil // an expression
		}

		switch {
		case k == "_id":
		case on:
			included[k] = struct{}{}
		default:
			excluded[k] = struct{}{}
		}
	}

	if len(included) > 0 && len(excluded) > 0 {
		return nil // the handler refuses it
	}

	var strip []string

	for f := range t.kinds {
		if _, ok := keep[f]; ok || !metadata.PlainField(f) {
			continue
		}

		_, in := included[f]
		_, out := excluded[f]

		if (len(included) > 0 && !in) || out {
			strip = append(strip, f)
		}
	}

	slices.Sort(strip)

	return strip
}

// chooseDriver decides, where the where has conditions on elements tables that could each be
// where the query starts, which one it starts from: the one naming the fewest rows (counted up to
// nradProbeCap), so that an agency's "o'brien" starts from the thousand rows of "brien", not the
// hundred thousand of the prefix "o" (611 ms → 9 ms for its count); with a limit beside a
// column's index, from that one only if it names at most nradDriveMax rows, else the index is
// walked in order. With one way to go it leaves the plan as it was (see whereSQL). The choice
// changes which rows SQLite reads first, never which match.
func (p *nradPlan) chooseDriver(ctx context.Context, db *fsql.DB) error {
	if p.where.sql == "" {
		return nil
	}

	parts := p.where.conjuncts()
	walkable := p.walkable()

	var cheap []int

	for i, c := range parts {
		if len(c.drive) > 0 {
			cheap = append(cheap, i)
		}
	}

	if len(cheap) == 0 || (len(cheap) == 1 && !walkable) {
		return nil
	}

	best, least := -1, int64(0)
	sizes := map[int]int64{}

	for _, i := range cheap {
		var size int64

		for _, rows := range parts[i].drive {
			var n int64

			args := append(slices.Clone(rows.args), nradProbeCap)
			if err := db.QueryRowContext(ctx, "SELECT count(*) FROM ("+rows.sql+" LIMIT ?)", args...).Scan(&n); err != nil {
				return lazyerrors.Error(err)
			}

			size += n
		}

		sizes[i] = size

		if best < 0 || size < least {
			best, least = i, size
		}
	}

	p.driver, p.sizes = best, sizes
	if walkable && least > nradDriveMax {
		p.driver = nradDriveWalk
	}

	return nil
}

// conjuncts are the conditions of a conjunction (nradAnd), or the condition alone.
func (c nradCond) conjuncts() []nradCond {
	if len(c.parts) == 0 {
		return []nradCond{c}
	}

	return c.parts
}

// walkable says whether the query has a limit and a condition on a column, whose index (in the
// sort's order) it may walk until the page is full.
func (p *nradPlan) walkable() bool {
	return p.limit > 0 && strings.Contains(p.where.sql, metadata.DefaultColumn+"->")
}

// whereSQL writes the where, and its arguments in order, with the rowids its elements tables
// compare. Without a choice (chooseDriver): with a limit, an elements condition beside a condition
// on a column is a filter (`+rowid`) — the column's index (in the sort's order, to the limit)
// reads only index entries until the page is full, while starting from a common word's elements
// reads every document that has it; without a limit (every match read, or counted) the elements
// may drive — the documents holding the words are all the query can match (a name search among
// an agency's 100,000 records: 36 ms → 17 ms; its count 33 ms → 13 ms). Alone, an elements
// condition may always drive (`+rowid` would make that a full scan).
//
// As chosen: the driver first, its rowids SQLite's to start from (`rowid`); then the other parts
// with elements as filters, those naming fewest rows first, each as `+rowid IN (…)` — listed once
// — or, naming nradProbeCap rows or more behind a part that names fewer, read from each row that
// got that far (onDoc) instead of listed; then the parts on columns. SQLite tests the conditions
// it does not loop on in the order written.
func (p *nradPlan) whereSQL() (string, []any) {
	if p.driver == nradDriveDefault {
		rowid := "rowid"
		if p.walkable() {
			rowid = "+rowid"
		}

		return strings.ReplaceAll(p.where.sql, elementsRowid, rowid), slices.Clone(p.where.args)
	}

	parts := p.where.conjuncts()

	order := make([]int, 0, len(parts))
	if p.driver >= 0 {
		order = append(order, p.driver)
	}

	var filters, others []int

	for i := range parts {
		switch _, sized := p.sizes[i]; {
		case i == p.driver:
		case sized:
			filters = append(filters, i)
		default:
			others = append(others, i)
		}
	}

	slices.SortStableFunc(filters, func(a, b int) int { return int(p.sizes[a] - p.sizes[b]) })
	order = append(append(order, filters...), others...)

	texts := make([]string, 0, len(order))

	var args []any

	narrowed := p.driver >= 0 // rows are already few when a part is tested

	for _, i := range order {
		c := parts[i]
		text := c.sql

		switch {
		case i == p.driver:
			text = strings.ReplaceAll(text, elementsRowid, "rowid")
		case narrowed && p.sizes[i] >= nradProbeCap && c.onDoc != "":
			text = c.onDoc
		default:
			text = strings.ReplaceAll(text, elementsRowid, "+rowid")
		}

		if _, sized := p.sizes[i]; sized && p.sizes[i] < nradProbeCap {
			narrowed = true
		}

		texts = append(texts, "("+text+")")
		args = append(args, c.args...)
	}

	return strings.Join(texts, " AND "), args
}

// sql returns the statement of the plan and its arguments.
func (p *nradPlan) sql(table string) (string, []any) {
	var where string

	var args []any

	if p.where.sql != "" {
		var sql string

		sql, args = p.whereSQL()
		where = " WHERE " + sql
	}

	if p.count {
		return fmt.Sprintf("SELECT count(*) FROM %q%s", table, where), args
	}

	columns := metadata.ReadColumn

	if len(p.strip) > 0 {
		// The document without the unread fields: their values, their types in the schema and
		// their names in the schema's list of keys (whose order is the document's).
		paths := make([]string, 0, 2*len(p.strip))
		names := make([]string, 0, len(p.strip))
		head := make([]any, 0, 3*len(p.strip))

		for _, f := range p.strip {
			paths = append(paths, "?", "?")
			names = append(names, "?")
			head = append(head, fmt.Sprintf(`$."%s"`, f), fmt.Sprintf(`$."$s".p."%s"`, f))
		}

		for _, f := range p.strip {
			head = append(head, f)
		}

		columns = fmt.Sprintf(
			`json_set(json_remove(%[1]s, %[2]s), '$."$s"."$k"', json((SELECT json_group_array(value) FROM json_each(%[1]s, '$."$s"."$k"') WHERE value NOT IN (%[3]s))))`,
			metadata.DefaultColumn, strings.Join(paths, ", "), strings.Join(names, ", "),
		)
		args = append(head, args...)
	}

	q := fmt.Sprintf("SELECT %s FROM %q%s%s", columns, table, where, p.orderBy)

	if p.limit > 0 {
		q += " LIMIT ?"
		args = append(args, p.limit)
	}

	return q, args
}
