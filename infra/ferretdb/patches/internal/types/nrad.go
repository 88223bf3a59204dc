// NRAD's addition to FerretDB v1.24.2 (infra/ferretdb/patches, docs/adr/0002): what
// sjson.MarshalJSONB (handler/sjson/nrad_jsonb.go) needs of a document, without the copies of
// Keys and Values, which it would make for every document of every write.

package types

// NradDistinctKeys reports whether no two fields of the document have the same key. Get panics on
// a duplicated key, and so does sjson.Marshal (through its schema): MarshalJSONB leaves such a
// document to Marshal, to fail as before.
func (d *Document) NradDistinctKeys() bool {
	if d == nil {
		return true
	}

	// keys counts each key's fields (Set, ConvertDocument, NewDocument and deepCopy keep it), and
	// Remove deletes a key only when it has a single field.
	return len(d.keys) == len(d.fields)
}

// NradField returns the key and the value of the i-th field (Keys()[i] and Values()[i], without
// copying them); i must be in [0, Len()).
func (d *Document) NradField(i int) (string, any) {
	f := d.fields[i]
	return f.key, f.value
}
