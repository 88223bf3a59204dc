// NRAD's addition to FerretDB v1.24.2 (infra/ferretdb/patches, docs/adr/0002): how an insert or an
// update gives SQLite a document to store.

package sqlite

import (
	"errors"

	"github.com/FerretDB/FerretDB/internal/handler/sjson"
	"github.com/FerretDB/FerretDB/internal/types"
)

// nradDocumentArg returns the statement argument that stores a document in its table, and the SQL
// expression that takes it (in place of upstream's `?` with Marshal's text):
//
//   - a JSONB table (metadata.Collection.NradJSONB) gets sjson.MarshalJSONB's bytes, bound as a
//     BLOB (the driver binds a []byte so, and MarshalJSONB's is never empty: an empty one would
//     be a zero-length BLOB) to `?` — the very bytes `jsonb(?)` made of Marshal's text before,
//     without making the text and parsing it again;
//   - a document MarshalJSONB leaves to SQLite (sjson.ErrJSONBNeedsText) gets Marshal's text, as
//     before, with `jsonb(?)`: the same bytes, or the same error;
//   - a text table gets Marshal's text with `?`, as upstream.
//
// Marshal's error is returned as it is, for its caller to wrap as upstream does.
func nradDocumentArg(doc *types.Document, jsonb bool) (any, string, error) {
	if jsonb {
		b, err := sjson.MarshalJSONB(doc)
		if err == nil {
			return b, "?", nil
		}

		if !errors.Is(err, sjson.ErrJSONBNeedsText) {
			return nil, "", err
		}
	}

	b, err := sjson.Marshal(doc)
	if err != nil {
		return nil, "", err
	}

	if jsonb {
		return string(b), "jsonb(?)", nil
	}

	return string(b), "?", nil
}
