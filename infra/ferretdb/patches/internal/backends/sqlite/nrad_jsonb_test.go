// NRAD's addition to FerretDB v1.24.2 (infra/ferretdb/patches, docs/adr/0002): what inserts and
// updates store, in JSONB tables and in text ones.

package sqlite

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/handler/sjson"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/must"
	"github.com/FerretDB/FerretDB/internal/util/state"
	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

// nradRegistry opens the backend's registry on a directory's databases.
func nradRegistry(t *testing.T, uri string) *metadata.Registry {
	t.Helper()

	sp, err := state.NewProvider("")
	require.NoError(t, err)

	r, err := metadata.NewRegistry(uri, 100, testutil.Logger(t), sp)
	require.NoError(t, err)

	return r
}

// nradStored requires each document's stored value to be what NRAD's statements stored before
// MarshalJSONB (SQLite's jsonb() of sjson.Marshal's text) in a JSONB table, and Marshal's text in a
// text table, as upstream; and the collection to read each document back as sjson.Unmarshal of
// SQLite's json() of that (json() escapes the control characters of top-level keys, which Marshal
// writes raw and encoding/json does not read). docs are the collection's documents, their `_id`s
// distinct.
func nradStored(t *testing.T, ctx context.Context, r *metadata.Registry, dbName, name string, docs []*types.Document, jsonb bool) {
	t.Helper()

	meta := r.CollectionGet(ctx, dbName, name)
	require.NotNil(t, meta)
	require.Equal(t, jsonb, meta.NradJSONB())

	db := r.DatabaseGetExisting(ctx, dbName)
	want := make(map[string]*types.Document, len(docs))

	for _, doc := range docs {
		text := must.NotFail(sjson.Marshal(doc))
		id := string(must.NotFail(sjson.MarshalSingleValue(must.NotFail(doc.Get("_id")))))

		var typ string
		var stored, expected, read []byte

		// read: what the collection's reads give (metadata.ReadColumn: SQLite's json() of it).
		q := fmt.Sprintf(`SELECT typeof(%[1]s), %[1]s, e, json(e) FROM %[2]q, (SELECT CASE WHEN ? THEN jsonb(?) ELSE ? END AS e) WHERE %[3]s = ?`,
			metadata.DefaultColumn, meta.TableName, metadata.IDColumn)
		err := db.QueryRowContext(ctx, q, jsonb, string(text), string(text), id).Scan(&typ, &stored, &expected, &read)
		require.NoError(t, err, "%s", id)

		if jsonb {
			require.Equal(t, "blob", typ)
		} else {
			require.Equal(t, "text", typ)
		}

		require.Equal(t, expected, stored, "%s", id)

		want[id] = must.NotFail(sjson.Unmarshal(read))
	}

	res, err := newCollection(r, dbName, name).Query(ctx, nil)
	require.NoError(t, err)

	got, err := iterator.ConsumeValues[struct{}, *types.Document](res.Iter)
	require.NoError(t, err)
	require.Len(t, got, len(docs))

	for _, doc := range got {
		id := string(must.NotFail(sjson.MarshalSingleValue(must.NotFail(doc.Get("_id")))))
		require.Contains(t, want, id)
		testutil.AssertEqual(t, want[id], doc)
	}
}

// nradChanged returns the documents changed as an update would: a field set, one removed.
func nradChanged(docs []*types.Document) []*types.Document {
	res := make([]*types.Document, len(docs))

	for i, doc := range docs {
		d := doc.DeepCopy()
		d.Set("updated", int64(i))

		if keys := d.Keys(); len(keys) > 2 {
			d.Remove(keys[1])
		}

		res[i] = d
	}

	return res
}

func TestNradJSONBTables(t *testing.T) {
	t.Parallel()

	ctx := testutil.Ctx(t)
	uri := testutil.TestSQLiteURI(t, "")
	dbName := testutil.DatabaseName(t)
	docs := append(testutil.NradEdgeDocuments(), testutil.NradDocuments(7, 300)...)

	r := nradRegistry(t, uri)
	t.Cleanup(func() { r.Close() }) // the last one (Text opens another)

	t.Run("Insert", func(t *testing.T) {
		c := newCollection(r, dbName, "jsonb")
		_, err := c.InsertAll(ctx, &backends.InsertAllParams{Docs: docs})
		require.NoError(t, err)
		nradStored(t, ctx, r, dbName, "jsonb", docs, true)

		changed := nradChanged(docs)
		res, err := c.UpdateAll(ctx, &backends.UpdateAllParams{Docs: changed})
		require.NoError(t, err)
		require.EqualValues(t, len(docs), res.Updated)
		nradStored(t, ctx, r, dbName, "jsonb", changed, true)
	})

	t.Run("Capped", func(t *testing.T) {
		err := newDatabase(r, dbName).CreateCollection(ctx, &backends.CreateCollectionParams{Name: "capped", CappedSize: 1 << 40})
		require.NoError(t, err)

		capped := make([]*types.Document, len(docs))
		for i, doc := range docs {
			capped[i] = doc.DeepCopy()
			capped[i].SetRecordID(int64(i + 1))
		}

		_, err = newCollection(r, dbName, "capped").InsertAll(ctx, &backends.InsertAllParams{Docs: capped})
		require.NoError(t, err)
		nradStored(t, ctx, r, dbName, "capped", capped, true)
	})

	t.Run("LeftToSQLite", func(t *testing.T) {
		// A top-level key that Marshal writes raw and SQLite parses as JSON5 escapes: stored as
		// before, through jsonb() of the text (and read back as before, differently: upstream's).
		doc := must.NotFail(types.NewDocument("_id", int32(1), `a\u0041`, "v"))
		_, err := sjson.MarshalJSONB(doc)
		require.ErrorIs(t, err, sjson.ErrJSONBNeedsText)

		c := newCollection(r, dbName, "left")
		_, err = c.InsertAll(ctx, &backends.InsertAllParams{Docs: []*types.Document{doc}})
		require.NoError(t, err)

		meta := r.CollectionGet(ctx, dbName, "left")
		text := string(must.NotFail(sjson.Marshal(doc)))

		var same bool
		q := fmt.Sprintf(`SELECT %s = jsonb(?) FROM %q`, metadata.DefaultColumn, meta.TableName)
		require.NoError(t, r.DatabaseGetExisting(ctx, dbName).QueryRowContext(ctx, q, text).Scan(&same))
		require.True(t, same)

		// A NaN fails as before.
		doc = must.NotFail(types.NewDocument("_id", int32(2), "f", must.NotFail(types.NewArray(math.NaN()))))
		_, err = c.InsertAll(ctx, &backends.InsertAllParams{Docs: []*types.Document{doc}})
		require.ErrorContains(t, err, "unsupported value: NaN")
		_, err = c.UpdateAll(ctx, &backends.UpdateAllParams{Docs: []*types.Document{doc}})
		require.ErrorContains(t, err, "unsupported value: NaN")
	})

	t.Run("Text", func(t *testing.T) {
		// A table made before NRAD's JSONB (by upstream or an earlier build: no NRAD settings)
		// keeps text.
		err := newDatabase(r, dbName).CreateCollection(ctx, &backends.CreateCollectionParams{Name: "text"})
		require.NoError(t, err)

		meta := r.CollectionGet(ctx, dbName, "text")
		q := fmt.Sprintf(`UPDATE %q SET settings = json_remove(settings, '$.nrad') WHERE table_name = ?`, "_ferretdb_collections")
		_, err = r.DatabaseGetExisting(ctx, dbName).ExecContext(ctx, q, meta.TableName)
		require.NoError(t, err)

		r.Close()
		r = nradRegistry(t, uri)

		c := newCollection(r, dbName, "text")
		_, err = c.InsertAll(ctx, &backends.InsertAllParams{Docs: docs})
		require.NoError(t, err)
		nradStored(t, ctx, r, dbName, "text", docs, false)

		changed := nradChanged(docs)
		_, err = c.UpdateAll(ctx, &backends.UpdateAllParams{Docs: changed})
		require.NoError(t, err)
		nradStored(t, ctx, r, dbName, "text", changed, false)
	})
}
