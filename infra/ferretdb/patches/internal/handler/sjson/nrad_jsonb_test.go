// NRAD's addition to FerretDB v1.24.2 (infra/ferretdb/patches, docs/adr/0002): MarshalJSONB
// writes exactly what SQLite's jsonb() makes of Marshal's text.

package sjson

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite" // the driver of FerretDB's SQLite backend

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

// nradSQLite returns an in-memory SQLite database of the driver FerretDB stores documents with.
func nradSQLite(tb testing.TB) *sql.DB {
	tb.Helper()

	db, err := sql.Open("sqlite", ":memory:")
	require.NoError(tb, err)
	db.SetMaxOpenConns(1)
	tb.Cleanup(func() { db.Close() })

	return db
}

// sqliteJSONB returns SQLite's jsonb() of a text, as the patched backend stored documents before
// MarshalJSONB (the text bound as a string to `jsonb(?)`).
func sqliteJSONB(db *sql.DB, text []byte) ([]byte, error) {
	var b []byte
	err := db.QueryRow(`SELECT jsonb(?)`, string(text)).Scan(&b)

	return b, err
}

// jsonbCoverage counts the nodes of a JSONB value by type and by header size (0, 1, 2 or 4 bytes
// of size after the first byte), and checks that each node's payload fits its parent exactly.
type jsonbCoverage map[string]int

func (c jsonbCoverage) walk(tb testing.TB, b []byte) {
	tb.Helper()

	for len(b) > 0 {
		typ, n, size := b[0]&0x0f, 0, int(b[0]>>4)

		switch size {
		case 12:
			n, size = 1, int(b[1])
		case 13:
			n, size = 2, int(b[1])<<8|int(b[2])
		case 14:
			n, size = 4, int(b[1])<<24|int(b[2])<<16|int(b[3])<<8|int(b[4])
		case 15:
			require.Fail(tb, "8-byte size")
		}

		require.LessOrEqual(tb, 1+n+size, len(b), "node overflows its parent")

		c[fmt.Sprintf("type %d, size in %d bytes", typ, n)]++

		if typ == jsonbArray || typ == jsonbObject {
			c.walk(tb, b[1+n:1+n+size])
		}

		b = b[1+n+size:]
	}
}

// checkJSONB requires MarshalJSONB(doc) to be SQLite's jsonb(Marshal(doc)), byte for byte, or
// ErrJSONBNeedsText where Marshal fails or SQLite does not parse Marshal's text. It returns the
// bytes (nil when left to SQLite).
func checkJSONB(t *testing.T, db *sql.DB, doc *types.Document) []byte {
	t.Helper()

	text, textErr := Marshal(doc)
	got, err := MarshalJSONB(doc)

	if textErr != nil {
		require.ErrorIs(t, err, ErrJSONBNeedsText, "Marshal fails: %v", textErr)
		return nil
	}

	want, sqliteErr := sqliteJSONB(db, text)
	if sqliteErr != nil {
		require.ErrorIs(t, err, ErrJSONBNeedsText, "SQLite fails: %v", sqliteErr)
		return nil
	}

	if errors.Is(err, ErrJSONBNeedsText) {
		// Left to SQLite: stored from Marshal's text as upstream does, so the same by construction.
		return nil
	}

	require.NoError(t, err, "text: %.300s", text)
	require.NotEmpty(t, got)

	if !assert.Equal(t, want, got, "text: %.300s", text) {
		t.FailNow()
	}

	// And SQLite reads it back as Marshal's text (a document's keys aside: json() escapes a
	// top-level key's control characters, which Marshal writes raw).
	var back string
	require.NoError(t, db.QueryRow(`SELECT json(?)`, got).Scan(&back))

	if !strings.ContainsFunc(string(text), func(r rune) bool { return r < 0x20 }) {
		require.Equal(t, string(text), back)
	}

	return got
}

func TestNradMarshalJSONB(t *testing.T) {
	t.Parallel()

	db := nradSQLite(t)
	coverage := jsonbCoverage{}

	t.Run("Edges", func(t *testing.T) {
		for _, doc := range testutil.NradEdgeDocuments() {
			b := checkJSONB(t, db, doc)
			require.NotNil(t, b, "left to SQLite: %v", doc)
			coverage.walk(t, b)
		}
	})

	t.Run("Generated", func(t *testing.T) {
		for seed := range uint64(4) {
			for _, doc := range testutil.NradDocuments(seed, 1000) {
				b := checkJSONB(t, db, doc)
				require.NotNil(t, b, "left to SQLite: %v", doc)
				coverage.walk(t, b)
			}
		}
	})

	t.Run("Coverage", func(t *testing.T) {
		// Every node type that sjson's text can become, with every size of header it can have.
		for _, typ := range []int{jsonbNull, jsonbTrue, jsonbFalse} {
			assert.Positive(t, coverage[fmt.Sprintf("type %d, size in 0 bytes", typ)], "type %d", typ)
		}

		for _, typ := range []int{jsonbInt, jsonbFloat, jsonbText, jsonbTextJ, jsonbText5} {
			for _, n := range []int{0, 1} {
				assert.Positive(t, coverage[fmt.Sprintf("type %d, size in %d bytes", typ, n)], "type %d, %d bytes", typ, n)
			}
		}

		for _, typ := range []int{jsonbText, jsonbTextJ, jsonbArray, jsonbObject} {
			for _, n := range []int{0, 1, 2, 4} {
				assert.Positive(t, coverage[fmt.Sprintf("type %d, size in %d bytes", typ, n)], "type %d, %d bytes", typ, n)
			}
		}

		t.Log(coverage)
	})

	t.Run("LeftToSQLite", func(t *testing.T) {
		// Marshal fails on NaN and infinities, anywhere.
		for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			for _, doc := range []*types.Document{
				must.NotFail(types.NewDocument("f", f)),
				must.NotFail(types.NewDocument("a", must.NotFail(types.NewArray(int32(1), f)))),
				must.NotFail(types.NewDocument("d", must.NotFail(types.NewDocument("x", "y", "f", f)))),
			} {
				_, err := MarshalJSONB(doc)
				require.ErrorIs(t, err, ErrJSONBNeedsText)
				_, err = Marshal(doc)
				require.Error(t, err)
			}
		}

		// Marshal writes top-level keys unescaped: a quote, a backslash or a NUL in one makes
		// text that SQLite rejects or reads otherwise than as this key.
		for _, k := range []string{`a"b`, `a\b`, `a\`, `\u0041`, "a\x00b", `"`, `a":1,"b`} {
			doc := must.NotFail(types.NewDocument("_id", int32(1), k, "v"))
			_, err := MarshalJSONB(doc)
			require.ErrorIs(t, err, ErrJSONBNeedsText, "%q", k)
			checkJSONB(t, db, doc) // still consistent with SQLite
		}

		// Duplicated keys make Marshal panic (types.Document.Get), at any level.
		dup := must.NotFail(types.NewDocument("a", int32(1), "a", int32(2)))
		for _, doc := range []*types.Document{
			dup,
			must.NotFail(types.NewDocument("d", dup)),
			must.NotFail(types.NewDocument("a", must.NotFail(types.NewArray(dup)))),
		} {
			_, err := MarshalJSONB(doc)
			require.ErrorIs(t, err, ErrJSONBNeedsText)
			require.Panics(t, func() { _, _ = Marshal(doc) })
		}

		// Nesting beyond SQLite's limit (1,000 arrays and objects; the schema of a nested
		// document takes three): up to the limit, the same bytes; past it, SQLite's error.
		var left int
		for levels := 320; levels <= 340; levels++ {
			if checkJSONB(t, db, testutil.NradNestedDocument(levels)) == nil {
				left++
			}
		}

		require.Positive(t, left)
		require.Less(t, left, 21)
	})
}

// TestNradMarshalJSONBBytes shows why the bytes are compared, not the JSON they read back as: a
// header wider than needed is valid JSONB of the same JSON, yet other bytes than SQLite's.
func TestNradMarshalJSONBBytes(t *testing.T) {
	t.Parallel()

	db := nradSQLite(t)
	doc := must.NotFail(types.NewDocument())

	got := checkJSONB(t, db, doc)
	require.Equal(t, []byte{jsonbObject | 4<<4, jsonbText | 2<<4, '$', 's', jsonbObject}, got) // {"$s":{}}

	wide := append([]byte{jsonbObject | 0xc0, 4}, got[1:]...)

	var back string
	require.NoError(t, db.QueryRow(`SELECT json(?)`, wide).Scan(&back))
	assert.Equal(t, `{"$s":{}}`, back)
	assert.NotEqual(t, got, wide)
}

// nradRecord is a record-like document of about sixty fields, as NRAD's records service stores
// them: short strings, dates, int64s, arrays of about ten short strings, a few nested ones.
func nradRecord(i int) *types.Document {
	d := must.NotFail(types.NewDocument("_id", types.NewObjectID()))

	for j := range 30 {
		d.Set("text"+strconv.Itoa(j), "Value "+strconv.Itoa(i*31+j)+" of a record field")
	}

	for j := range 10 {
		d.Set("date"+strconv.Itoa(j), time.UnixMilli(1_700_000_000_000+int64(i*1000+j)).UTC())
	}

	for j := range 10 {
		d.Set("count"+strconv.Itoa(j), int64(i*1_000_003+j))
	}

	for j := range 6 {
		a := types.MakeArray(10)
		for k := range 10 {
			a.Append("tok" + strconv.Itoa(i+j*10+k))
		}

		d.Set("tokens"+strconv.Itoa(j), a)
	}

	d.Set("deletedAt", types.Null)
	d.Set("flag", true)
	d.Set("address", must.NotFail(types.NewDocument("line1", "12 Main Street", "city", "Springfield", "zip", "12345")))

	return d
}

// BenchmarkNradJSONB compares the bytes' two ways for a record: Marshal's text bound to SQLite's
// `jsonb(?)` (before), and MarshalJSONB bound to `?` (now), each through the same statement, and
// each encoder alone.
func BenchmarkNradJSONB(b *testing.B) {
	db := nradSQLite(b)
	doc := nradRecord(7)

	text := must.NotFail(Marshal(doc))
	want := must.NotFail(sqliteJSONB(db, text))
	require.Equal(b, want, must.NotFail(MarshalJSONB(doc)))
	b.Logf("record: %d fields, text %d bytes, JSONB %d bytes", doc.Len(), len(text), len(want))

	textStmt, err := db.Prepare(`SELECT length(jsonb(?))`)
	require.NoError(b, err)

	blobStmt, err := db.Prepare(`SELECT length(?)`)
	require.NoError(b, err)

	b.Run("Marshal+jsonb()", func(b *testing.B) {
		b.ReportAllocs()

		for range b.N {
			t := must.NotFail(Marshal(doc))

			var n int
			if err := textStmt.QueryRow(string(t)).Scan(&n); err != nil {
				b.Fatal(err)
			}
		}
	})

	b.Run("MarshalJSONB+?", func(b *testing.B) {
		b.ReportAllocs()

		for range b.N {
			j := must.NotFail(MarshalJSONB(doc))

			var n int
			if err := blobStmt.QueryRow(j).Scan(&n); err != nil {
				b.Fatal(err)
			}
		}
	})

	b.Run("Marshal", func(b *testing.B) {
		b.ReportAllocs()

		for range b.N {
			_ = must.NotFail(Marshal(doc))
		}
	})

	b.Run("MarshalJSONB", func(b *testing.B) {
		b.ReportAllocs()

		for range b.N {
			_ = must.NotFail(MarshalJSONB(doc))
		}
	})
}
