// NRAD's addition to FerretDB v1.24.2 (infra/ferretdb/patches, docs/adr/0002): what the SQLite
// backend knows about the values stored in each collection, kept in the collection's settings, and
// the elements table that indexes the elements of array fields.

package metadata

import (
	"context"
	"fmt"
	"maps"
	"math"
	"regexp"
	"sync"
	"time"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// Kinds of values a top-level field has held. A filter condition on a field can be written as SQL
// on the field's stored JSON text (`_ferretdb_sjson->"field"`, the expression of its index) only
// when the kinds tell that no document the filter matches is missed by the SQL; the condition is
// exact (no extra documents either) only when no other kind shares the same JSON text.
const (
	KindString    uint32 = 1 << iota // JSON string
	KindObjectID                     // JSON string of 24 hex digits
	KindBool                         // true or false
	KindDate13                       // date in milliseconds with 13 digits (2001-09-09 to 2286-11-20): its text sorts as the date
	KindDateOther                    // any other date (its text does not sort as the date)
	KindNumSafe                      // number whose text is the same for every equal number: int32; int64 and double within ±2^53 (not -0)
	KindNumOdd                       // any other number (-0, beyond ±2^53)
	KindNull                         // null
	KindArray                        // array (the kinds of its elements are kept shifted by KindElementShift)
	KindObject                       // embedded document
	KindBinary                       // binary data (stored as a base64 JSON string)
	KindRegex                        // regular expression (stored as a JSON string of the pattern)
	KindTimestamp                    // timestamp (stored as a JSON number)
	KindOther                        // anything else

	// KindElementShift is where the kinds of array elements start.
	KindElementShift = 16

	// KindUnknown says nothing is known: no condition on the field is pushed down.
	KindUnknown uint32 = math.MaxUint32
)

// maxSafe is 2^53: integers up to it in magnitude are exact as doubles, and Go writes equal values
// of int64 and float64 with the same JSON text.
const maxSafe = 1 << 53

// KindOf classifies one value the way NradSettings.Kinds records it.
func KindOf(v any) uint32 {
	switch v := v.(type) {
	case string:
		return KindString
	case types.ObjectID:
		return KindObjectID
	case bool:
		return KindBool
	case time.Time:
		if ms := v.UnixMilli(); ms >= 1e12 && ms <= 9_999_999_999_999 {
			return KindDate13
		}

		return KindDateOther
	case int32:
		return KindNumSafe
	case int64:
		if v >= -maxSafe && v <= maxSafe {
			return KindNumSafe
		}

		return KindNumOdd
	case float64:
		if math.IsNaN(v) || math.Abs(v) > maxSafe || (v == 0 && math.Signbit(v)) {
			return KindNumOdd
		}

		return KindNumSafe
	case types.NullType:
		return KindNull
	case *types.Array:
		k := KindArray

		for i := 0; i < v.Len(); i++ {
			e, _ := v.Get(i)
			k |= KindOf(e) << KindElementShift
		}

		return k
	case *types.Document:
		return KindObject
	case types.Binary:
		return KindBinary
	case types.Regex:
		return KindRegex
	case types.Timestamp:
		return KindTimestamp
	default:
		return KindOther
	}
}

// KindsOf returns the kinds of the top-level fields of a document.
func KindsOf(doc *types.Document, into map[string]uint32) {
	keys := doc.Keys()
	values := doc.Values()

	for i, k := range keys {
		into[k] |= KindOf(values[i])
	}
}

// NradSettings is what NRAD's patch keeps in a collection's settings (in `_ferretdb_collections`,
// beside the indexes), so that a restart does not have to read every document again.
type NradSettings struct {
	// Kinds maps every top-level field a stored document has had to the kinds of values it held.
	// Kinds only grow: a delete or an update never narrows them.
	Kinds map[string]uint32 `json:"kinds"`

	// Multikey maps each field whose string elements are kept in the elements table to its id
	// there.
	Multikey map[string]int `json:"multikey,omitempty"`

	// JSONB is set for a table made by NRAD's build, whose documents are stored as SQLite's binary
	// JSON (a column of type ANY): reading a field (every index expression of every insert) then walks
	// the stored bytes instead of parsing the document's text. Tables made before keep text.
	JSONB bool `json:"jsonb,omitempty"`
}

// ReadColumn is the SELECT expression of a stored document: its JSON text, the same text for a
// JSONB table as for a text one (json() writes binary JSON back as the text it was made from).
const ReadColumn = "json(" + DefaultColumn + ") AS " + DefaultColumn

// NradJSONB reports whether the collection's table stores its documents as JSONB: inserts and
// updates then bind sjson.MarshalJSONB's bytes (sqlite/nrad_jsonb.go), else Marshal's text.
func (c *Collection) NradJSONB() bool {
	return c.Settings.Nrad != nil && c.Settings.Nrad.JSONB
}

// deepCopy returns a deep copy (nil for nil).
func (s *NradSettings) deepCopy() *NradSettings {
	if s == nil {
		return nil
	}

	return &NradSettings{Kinds: maps.Clone(s.Kinds), Multikey: maps.Clone(s.Multikey), JSONB: s.JSONB}
}

// newNradSettings returns the settings of a new, empty collection: everything about it is known,
// and its table stores JSONB (registry.go's CREATE TABLE, patched).
func newNradSettings() *NradSettings {
	return &NradSettings{Kinds: map[string]uint32{}, JSONB: true}
}

// ElementsTable is the name of the elements table of a collection's table.
func ElementsTable(table string) string {
	return table + "__nrad_elements"
}

// plainField matches the field names NRAD's pushdown handles (and may write into SQL text).
var plainField = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// PlainField reports whether a top-level field name is one the pushdown handles.
func PlainField(name string) bool {
	return plainField.MatchString(name)
}

// nradState is the per-collection locking of NRAD's patch.
//
// A query holds a collection's lock for reading from the moment it reads the kinds until SQLite
// has taken the snapshot its statement reads; a write holds it for reading from checking that
// the kinds cover what it writes until its transaction ends. Changing the kinds (a write of a new
// kind, learning them, indexing elements) holds it for writing. So no query ever reads a document
// whose kinds were unknown to the SQL it runs.
type nradState struct {
	m        sync.Mutex
	locks    map[string]*sync.RWMutex // database name + "\x00" + table name
	analyzes map[string]*nradAnalyze  // likewise
}

// nradLock returns the lock of a collection's table.
func (r *Registry) nradLock(dbName, table string) *sync.RWMutex {
	r.nrad.m.Lock()
	defer r.nrad.m.Unlock()

	if r.nrad.locks == nil {
		r.nrad.locks = map[string]*sync.RWMutex{}
	}

	key := dbName + "\x00" + table

	l := r.nrad.locks[key]
	if l == nil {
		l = new(sync.RWMutex)
		r.nrad.locks[key] = l
	}

	return l
}

// NradRead returns the collection's metadata with its kinds known, holding the collection's lock
// for reading; the caller calls the returned function once its statement has its snapshot (after
// the first step). It returns nil (and a no-op) when the collection does not exist.
func (r *Registry) NradRead(ctx context.Context, dbName, collectionName string) (*Collection, func(), error) {
	for {
		c := r.CollectionGet(ctx, dbName, collectionName)
		if c == nil {
			return nil, func() {}, nil
		}

		l := r.nradLock(dbName, c.TableName)
		l.RLock()

		if c = r.CollectionGet(ctx, dbName, collectionName); c == nil {
			l.RUnlock()
			return nil, func() {}, nil
		}

		if c.Settings.Nrad != nil {
			return c, l.RUnlock, nil
		}

		l.RUnlock()

		if err := r.nradLearn(ctx, dbName, collectionName); err != nil {
			return nil, func() {}, lazyerrors.Error(err)
		}
	}
}

// NradWrite makes the collection's kinds cover the given ones (kinds of the documents about to be
// written) and returns holding the collection's lock for reading; the caller calls the returned
// function when its write has ended (committed or not). The collection must exist.
func (r *Registry) NradWrite(ctx context.Context, dbName, collectionName string, kinds map[string]uint32) (func(), error) {
	for {
		c := r.CollectionGet(ctx, dbName, collectionName)
		if c == nil {
			return func() {}, nil
		}

		l := r.nradLock(dbName, c.TableName)
		l.RLock()

		if c = r.CollectionGet(ctx, dbName, collectionName); c == nil {
			return l.RUnlock, nil
		}

		// Unknown kinds stay unknown until a query learns them (from the table, this write
		// included: learning waits for the lock this write holds).
		if c.Settings.Nrad == nil || kindsCover(c.Settings.Nrad.Kinds, kinds) {
			return l.RUnlock, nil
		}

		l.RUnlock()

		if err := r.nradWiden(ctx, dbName, collectionName, kinds); err != nil {
			return func() {}, lazyerrors.Error(err)
		}
	}
}

// kindsCover reports whether known already has every kind of add.
func kindsCover(known, add map[string]uint32) bool {
	for f, k := range add {
		if known[f]&k != k {
			return false
		}
	}

	return true
}

// nradWiden adds kinds to the collection's settings (and indexes the elements of fields that
// become arrays), holding the collection's lock for writing.
func (r *Registry) nradWiden(ctx context.Context, dbName, collectionName string, kinds map[string]uint32) error {
	return r.nradExclusive(ctx, dbName, collectionName, func(*Collection) error {
		return r.nradUpdate(ctx, dbName, collectionName, func(c *Collection) bool {
			s := c.Settings.Nrad
			if s == nil || kindsCover(s.Kinds, kinds) {
				return false
			}

			for f, k := range kinds {
				s.Kinds[f] |= k
			}

			return true
		})
	})
}

// NradIndexesCreated indexes the elements of array fields that a new single-field index names.
func (r *Registry) NradIndexesCreated(ctx context.Context, dbName, collectionName string) error {
	return r.nradExclusive(ctx, dbName, collectionName, func(*Collection) error {
		return r.nradUpdate(ctx, dbName, collectionName, func(*Collection) bool { return false })
	})
}

// nradExclusive runs fn on the collection holding its lock for writing (nothing if it does not exist).
func (r *Registry) nradExclusive(ctx context.Context, dbName, collectionName string, fn func(c *Collection) error) error {
	c := r.CollectionGet(ctx, dbName, collectionName)
	if c == nil {
		return nil
	}

	l := r.nradLock(dbName, c.TableName)
	l.Lock()
	defer l.Unlock()

	return fn(c)
}

// NradRebuildElements writes the elements table of a collection again from its documents (after
// VACUUM, which may renumber the rowids it refers to).
func (r *Registry) NradRebuildElements(ctx context.Context, dbName, collectionName string) error {
	c := r.CollectionGet(ctx, dbName, collectionName)
	if c == nil || c.Settings.Nrad == nil || len(c.Settings.Nrad.Multikey) == 0 {
		return nil
	}

	l := r.nradLock(dbName, c.TableName)
	l.Lock()
	defer l.Unlock()

	db := r.DatabaseGetExisting(ctx, dbName)
	if db == nil {
		return nil
	}

	return db.InTransaction(ctx, func(tx *fsql.Tx) error {
		q := fmt.Sprintf(`DELETE FROM %q`, ElementsTable(c.TableName))
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return lazyerrors.Error(err)
		}

		for field, id := range c.Settings.Nrad.Multikey {
			for _, q := range elementsBackfill(c.TableName, field, id) {
				if _, err := tx.ExecContext(ctx, q); err != nil {
					return lazyerrors.Error(err)
				}
			}
		}

		return nil
	})
}

// nradUpdate changes the NRAD settings of a collection through change (which reports whether it
// changed anything), indexes the elements of every array field that has a single-field index,
// and stores the settings, in one transaction. The caller holds the collection's lock for writing.
func (r *Registry) nradUpdate(ctx context.Context, dbName, collectionName string, change func(*Collection) bool) error {
	// Like upstream's index changes, this holds the registry's lock: the settings are rewritten
	// whole, so no other change of them may interleave.
	r.rw.Lock()
	defer r.rw.Unlock()

	c := r.collectionGet(dbName, collectionName)
	if c == nil {
		return nil
	}

	db := r.DatabaseGetExisting(ctx, dbName)
	if db == nil {
		return nil
	}

	changed := change(c)

	s := c.Settings.Nrad
	if s == nil {
		return nil
	}

	var add []string

	for _, index := range c.Settings.Indexes {
		if len(index.Key) != 1 {
			continue
		}

		f := index.Key[0].Field
		if _, ok := s.Multikey[f]; ok || !PlainField(f) || s.Kinds[f]&KindArray == 0 || c.Capped() {
			continue
		}

		add = append(add, f)
	}

	if !changed && len(add) == 0 {
		return nil
	}

	err := db.InTransaction(ctx, func(tx *fsql.Tx) error {
		// The first statement writes, so the transaction takes the write lock at once, waiting for
		// it as long as busy_timeout allows. Begun with a read instead (CREATE TABLE IF NOT EXISTS
		// of a table that exists only reads the schema), its first write had to upgrade a read
		// snapshot, and SQLite refuses that at once with SQLITE_BUSY when any other connection has
		// committed since (this registry's background ANALYZE, say): createIndexes failed so now
		// and then ("database is locked"), one run in about 20 of records' name-terms migration test.
		lock := fmt.Sprintf("UPDATE %q SET settings = settings WHERE table_name = ?", metadataTableName)
		if _, err := tx.ExecContext(ctx, lock, c.TableName); err != nil {
			return lazyerrors.Error(err)
		}

		if len(add) > 0 {
			if s.Multikey == nil {
				s.Multikey = map[string]int{}
			}

			if err := createElementsTable(ctx, tx, c.TableName); err != nil {
				return lazyerrors.Error(err)
			}

			for _, f := range add {
				id := 1
				for _, used := range s.Multikey {
					id = max(id, used+1)
				}

				for _, q := range elementsTriggers(c.TableName, f, id) {
					if _, err := tx.ExecContext(ctx, q); err != nil {
						return lazyerrors.Error(err)
					}
				}

				for _, q := range elementsBackfill(c.TableName, f, id) {
					if _, err := tx.ExecContext(ctx, q); err != nil {
						return lazyerrors.Error(err)
					}
				}

				s.Multikey[f] = id

				if err := dropWholeValueIndexes(ctx, tx, c, f); err != nil {
					return lazyerrors.Error(err)
				}
			}
		}

		q := fmt.Sprintf("UPDATE %q SET settings = ? WHERE table_name = ?", metadataTableName)
		if _, err := tx.ExecContext(ctx, q, c.Settings, c.TableName); err != nil {
			return lazyerrors.Error(err)
		}

		return nil
	})
	if err != nil {
		return lazyerrors.Error(err)
	}

	r.colls[dbName][collectionName] = c

	return nil
}

// createElementsTable creates the elements table of a collection table if it is missing: one row
// per distinct string element (or string value) of each indexed array field of each document,
// `f` naming the field (NradSettings.Multikey), `v` the string, `r` the document's rowid.
func createElementsTable(ctx context.Context, tx *fsql.Tx, table string) error {
	t := ElementsTable(table)

	// No index on (r, f): the triggers delete a document's rows by the primary key, from the
	// elements of the document's old value (elementsTriggers). Tables made before that keep theirs.
	q := fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %q (f INTEGER NOT NULL, v TEXT NOT NULL, r INTEGER NOT NULL, PRIMARY KEY (f, v, r)) WITHOUT ROWID`, t)
	if _, err := tx.ExecContext(ctx, q); err != nil {
		return lazyerrors.Error(err)
	}

	return nil
}

// dropWholeValueIndexes drops the SQLite index of each non-unique single-field index on a field
// whose elements the elements table now keeps. Such an index holds the field's whole value (the
// JSON text of an array) as its key, and no NRAD plan reads it: a field that has held an array
// is matched through its elements, and never sorted or ranged in SQL (nrad_pushdown.go).
// Upstream's SQLite backend reads no index but _id's. The index stays in the collection's
// settings (listIndexes shows it, dropIndexes removes it); a unique index stays whole, as it
// enforces uniqueness.
func dropWholeValueIndexes(ctx context.Context, tx *fsql.Tx, c *Collection, field string) error {
	for _, index := range c.Settings.Indexes {
		if index.Unique || len(index.Key) != 1 || index.Key[0].Field != field {
			continue
		}

		q := fmt.Sprintf(`DROP INDEX IF EXISTS %q`, c.TableName+"_"+index.Name)
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return lazyerrors.Error(err)
		}
	}

	return nil
}

// elementsOf is the SELECT of the elements table's rows of one field of the documents in `doc`
// (NEW in a trigger, or an alias of the collection table that `from` lists before the field's
// elements): the field's direct string elements when it is an array, or the field itself when it
// is a string. json_each walks the field's value alone (`->` takes it out of the document, which
// SQLite parses once per statement and then finds in its JSON cache for json_type), not the whole
// document, which json_each(document, path) would parse again for each field.
func elementsOf(from, doc, field string, id int) string {
	return fmt.Sprintf(`SELECT %d, j.value, %s.rowid %s`, id, doc, elementsFrom(from, doc, field))
}

// elementsFrom is the FROM and WHERE of elementsOf: its rows' values are j.value.
func elementsFrom(from, doc, field string) string {
	path := fmt.Sprintf(`'$."%s"'`, field) // field is a PlainField
	return fmt.Sprintf(
		`FROM %[4]sjson_each(%[1]s.%[2]s -> %[3]s) AS j `+
			`WHERE j.type = 'text' AND json_type(%[1]s.%[2]s, %[3]s) IN ('array', 'text')`,
		doc, DefaultColumn, path, from,
	)
}

// ElementsOnDocument is the FROM and WHERE, over the elements of one field of the row `doc` (the
// collection table's name, quoted), that the elements table holds for it: a query's condition on
// them read from the document itself (`EXISTS (SELECT 1 <this> AND j.value = ?)`) matches exactly
// the rows its condition on the elements table would.
func ElementsOnDocument(doc, field string) string {
	return elementsFrom("", doc, field)
}

// elementsTriggers returns the statements that keep the elements of one field in the elements
// table as documents are inserted, replaced and deleted (in the same transaction as the change).
// A document's rows are exactly the elements of its value (only these triggers and
// elementsBackfill write them, from elementsOf), so the rows of its old value are found by the
// primary key (f, v, r), without a second index to keep on every insert.
func elementsTriggers(table, field string, id int) []string {
	t := ElementsTable(table)
	name := func(op string) string { return fmt.Sprintf("%s_%s%d", t, op, id) }
	drop := fmt.Sprintf(`DELETE FROM %q WHERE f = %d AND v IN (SELECT j.value %s) AND r = OLD.rowid;`,
		t, id, elementsFrom("", "OLD", field))

	return []string{
		fmt.Sprintf(`CREATE TRIGGER IF NOT EXISTS %q AFTER INSERT ON %q BEGIN INSERT OR IGNORE INTO %q (f, v, r) %s; END`,
			name("i"), table, t, elementsOf("", "NEW", field, id)),
		fmt.Sprintf(`CREATE TRIGGER IF NOT EXISTS %q AFTER UPDATE OF %s ON %q BEGIN %s INSERT OR IGNORE INTO %q (f, v, r) %s; END`,
			name("u"), DefaultColumn, table, drop, t, elementsOf("", "NEW", field, id)),
		fmt.Sprintf(`CREATE TRIGGER IF NOT EXISTS %q AFTER DELETE ON %q BEGIN %s END`,
			name("d"), table, drop),
	}
}

// elementsBackfill returns the statements that write the elements of one field of every document.
func elementsBackfill(table, field string, id int) []string {
	t := ElementsTable(table)

	return []string{
		fmt.Sprintf(`DELETE FROM %q WHERE f = %d`, t, id),
		fmt.Sprintf(`INSERT OR IGNORE INTO %q (f, v, r) %s`, t, elementsOf(fmt.Sprintf("%q AS d, ", table), "d", field, id)),
	}
}
