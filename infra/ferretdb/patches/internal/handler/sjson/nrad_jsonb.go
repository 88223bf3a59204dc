// NRAD's addition to FerretDB v1.24.2 (infra/ferretdb/patches, docs/adr/0002): a document of a
// JSONB table written as SQLite's binary JSON in Go.
//
// A JSONB table (backends/sqlite/metadata/nrad.go, NradSettings.JSONB) stored SQLite's jsonb() of
// Marshal's text: every write made the text (an eighth of the FerretDB process's CPU in a batch
// upload) for SQLite to parse it again (a twentieth). MarshalJSONB writes the bytes jsonb() made of
// that text, byte for byte, so nothing stored differs from before (nrad_jsonb_test.go compares them
// with SQLite's on generated documents).
//
// SQLite's parser (jsonTranslateTextToBlob, https://sqlite.org/jsonb.html) keeps every scalar's
// literal text: a number as INT (no '.' or exponent) or FLOAT, a string as what is between its
// quotes, TEXT without a backslash and TEXTJ with one (JSON's own escapes; TEXT5 for JSON5's and for
// raw control characters). Each node has a header: its type in the low four bits and its payload's
// size in the high four when it is at most 11, else 12, 13 or 14 there and the size in the next 1,
// 2 or 4 bytes (big-endian), always the smallest that fits (an array's or an object's is shrunk to
// it once its payload is known: jsonBlobChangePayloadSize). This writer does the same.

package sjson

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/FerretDB/FerretDB/internal/types"
)

// ErrJSONBNeedsText is MarshalJSONB's answer for a document whose JSONB it leaves to SQLite: one
// that Marshal fails or panics on (a double that is NaN or infinite, a duplicated key, a nil
// document or array), and one whose text SQLite would parse other than as standard JSON (a
// top-level key with a quote, a backslash or a NUL, which Marshal writes without escaping; nesting
// deeper than SQLite's limit). Its caller stores Marshal's text through jsonb(), as before: the same
// bytes or the same error.
var ErrJSONBNeedsText = errors.New("sjson.MarshalJSONB: the document is stored from its text")

// SQLite's JSONB node types.
const (
	jsonbNull   = 0x0
	jsonbTrue   = 0x1
	jsonbFalse  = 0x2
	jsonbInt    = 0x3
	jsonbFloat  = 0x5
	jsonbText   = 0x7
	jsonbTextJ  = 0x8
	jsonbText5  = 0x9
	jsonbArray  = 0xb
	jsonbObject = 0xc
)

// jsonbMaxDepth is SQLite's JSON_MAX_DEPTH: it does not parse arrays and objects nested deeper.
const jsonbMaxDepth = 1000

// MarshalJSONB returns the bytes that SQLite's jsonb() returns for Marshal(d)'s text, or
// ErrJSONBNeedsText for a document it leaves to them. The result is never empty (an object that
// has at least the "$s" key).
func MarshalJSONB(d *types.Document) ([]byte, error) {
	if d == nil {
		panic("v is nil") // as Marshal
	}

	// About what a document with short fields takes, so that a record is written with a
	// reallocation or two at most.
	w := jsonbWriter{b: make([]byte, 0, 256+48*d.Len())}

	if !w.document(d) {
		return nil, ErrJSONBNeedsText
	}

	return w.b, nil
}

// jsonbWriter appends JSONB nodes; each of its methods returns false for what MarshalJSONB leaves
// to SQLite (ErrJSONBNeedsText).
type jsonbWriter struct {
	b     []byte
	depth int // arrays and objects open, as SQLite counts them
}

// document appends a top-level document as Marshal writes it: {"$s":<schema>,"key":value,...},
// its keys between quotes as they are (not escaped).
func (w *jsonbWriter) document(d *types.Document) bool {
	if !d.NradDistinctKeys() {
		return false
	}

	at, ok := w.open()
	if !ok {
		return false
	}

	w.b = append(w.b, jsonbKeySchema...)

	if !w.schema(d) {
		return false
	}

	for i := range d.Len() {
		k, v := d.NradField(i)
		if !w.rawKey(k) || !w.value(v) {
			return false
		}
	}

	w.close(at, jsonbObject)

	return true
}

// rawKey appends a top-level key, which Marshal writes between quotes without escaping it, as
// SQLite parses that: TEXT, or TEXT5 when it has a control character (JSON5 allows them). A quote
// or a backslash would end the string or start an escape elsewhere than in the key, and a NUL ends
// SQLite's text: those are left to SQLite.
func (w *jsonbWriter) rawKey(k string) bool {
	typ := byte(jsonbText)

	for i := 0; i < len(k); i++ {
		switch c := k[i]; {
		case c == '"' || c == '\\' || c == 0:
			return false
		case c < 0x20:
			typ = jsonbText5
		}
	}

	w.b = appendJSONBHeader(w.b, typ, len(k))
	w.b = append(w.b, k...)

	return true
}

// schema appends a document's schema as marshalSchemaForDoc writes it:
// {"p":{"key":<elem>,...},"$k":["key",...]}, or {} for an empty document.
func (w *jsonbWriter) schema(d *types.Document) bool {
	if d == nil || !d.NradDistinctKeys() {
		return false
	}

	n := d.Len()
	if n == 0 {
		return w.constant(jsonbEmptyObject)
	}

	at, ok := w.open()
	if !ok {
		return false
	}

	w.b = append(w.b, jsonbKeyP...)

	p, ok := w.open()
	if !ok {
		return false
	}

	for i := range n {
		k, v := d.NradField(i)
		if !w.jsonString(k) || !w.elem(v) {
			return false
		}
	}

	w.close(p, jsonbObject)
	w.b = append(w.b, jsonbKeyK...)

	keys, ok := w.open()
	if !ok {
		return false
	}

	for i := range n {
		k, _ := d.NradField(i)
		if !w.jsonString(k) {
			return false
		}
	}

	w.close(keys, jsonbArray)
	w.close(at, jsonbObject)

	return true
}

// elem appends the schema of a value as marshalElemForSingleValue writes it.
func (w *jsonbWriter) elem(v any) bool {
	switch v := v.(type) {
	case *types.Document:
		at, ok := w.open()
		if !ok {
			return false
		}

		w.b = append(w.b, jsonbElemObjectPrefix...)

		if !w.schema(v) {
			return false
		}

		w.close(at, jsonbObject)

	case *types.Array:
		if v == nil {
			return false // its value panics in Marshal
		}

		at, ok := w.open()
		if !ok {
			return false
		}

		w.b = append(w.b, jsonbElemArrayPrefix...)

		items, ok := w.open()
		if !ok {
			return false
		}

		for i := range v.Len() {
			item, _ := v.Get(i)
			if !w.elem(item) {
				return false
			}
		}

		w.close(items, jsonbArray)
		w.close(at, jsonbObject)

	case float64:
		return w.constant(jsonbElemDouble)
	case string:
		return w.constant(jsonbElemString)

	case types.Binary:
		at, ok := w.open()
		if !ok {
			return false
		}

		w.b = append(w.b, jsonbElemBinDataPrefix...)
		w.uint(jsonbInt, uint64(v.Subtype)) // encoding/json writes a byte as its number
		w.close(at, jsonbObject)

	case types.ObjectID:
		return w.constant(jsonbElemObjectID)
	case bool:
		return w.constant(jsonbElemBool)
	case time.Time:
		return w.constant(jsonbElemDate)
	case types.NullType:
		return w.constant(jsonbElemNull)

	case types.Regex:
		at, ok := w.open()
		if !ok {
			return false
		}

		w.b = append(w.b, jsonbElemRegexPrefix...)

		if !w.jsonString(v.Options) {
			return false
		}

		w.close(at, jsonbObject)

	case int32:
		return w.constant(jsonbElemInt)
	case types.Timestamp:
		return w.constant(jsonbElemTimestamp)
	case int64:
		return w.constant(jsonbElemLong)
	default:
		return false // Marshal panics
	}

	return true
}

// value appends a value as its type's MarshalJSON writes it.
func (w *jsonbWriter) value(v any) bool {
	switch v := v.(type) {
	case *types.Document:
		if v == nil || !v.NradDistinctKeys() {
			return false
		}

		at, ok := w.open()
		if !ok {
			return false
		}

		for i := range v.Len() {
			k, fv := v.NradField(i)
			if !w.jsonString(k) || !w.value(fv) {
				return false
			}
		}

		w.close(at, jsonbObject)

	case *types.Array:
		if v == nil {
			return false
		}

		at, ok := w.open()
		if !ok {
			return false
		}

		for i := range v.Len() {
			item, _ := v.Get(i)
			if !w.value(item) {
				return false
			}
		}

		w.close(at, jsonbArray)

	case float64:
		return w.double(v)
	case string:
		return w.jsonString(v)

	case types.Binary:
		// encoding/json writes a nil []byte as null, any other as its standard base64, whose
		// characters it does not escape.
		if v.B == nil {
			w.b = append(w.b, jsonbNull)
			break
		}

		w.b = appendJSONBHeader(w.b, jsonbText, base64.StdEncoding.EncodedLen(len(v.B)))
		w.b = base64.StdEncoding.AppendEncode(w.b, v.B)

	case types.ObjectID:
		w.b = appendJSONBHeader(w.b, jsonbText, 2*len(v))
		w.b = hex.AppendEncode(w.b, v[:])

	case bool:
		if v {
			w.b = append(w.b, jsonbTrue)
		} else {
			w.b = append(w.b, jsonbFalse)
		}

	case time.Time:
		w.int(v.UnixMilli())
	case types.NullType:
		w.b = append(w.b, jsonbNull)
	case types.Regex:
		return w.jsonString(v.Pattern)
	case int32:
		w.int(int64(v))
	case types.Timestamp:
		w.uint(jsonbInt, uint64(v))
	case int64:
		w.int(v)
	default:
		return false // Marshal panics
	}

	return true
}

// int appends an integer's decimal text as INT.
func (w *jsonbWriter) int(v int64) {
	var buf [24]byte
	t := strconv.AppendInt(buf[:0], v, 10)
	w.b = appendJSONBHeader(w.b, jsonbInt, len(t))
	w.b = append(w.b, t...)
}

// uint appends an unsigned integer's decimal text as a node of the given type.
func (w *jsonbWriter) uint(typ byte, v uint64) {
	var buf [24]byte
	t := strconv.AppendUint(buf[:0], v, 10)
	w.b = appendJSONBHeader(w.b, typ, len(t))
	w.b = append(w.b, t...)
}

// double appends a double as encoding/json writes it (its floatEncoder: the shortest text that
// reads back the same, in exponent form below 1e-6 and from 1e21, an exponent's leading zero
// removed): INT when that text has neither a '.' nor an exponent (-0, 1e20), else FLOAT.
// encoding/json fails on NaN and infinities, and so Marshal: they are left to it.
func (w *jsonbWriter) double(f float64) bool {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return false
	}

	var buf [32]byte

	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}

	t := strconv.AppendFloat(buf[:0], f, format, -1, 64)

	if format == 'e' {
		if n := len(t); n >= 4 && t[n-4] == 'e' && t[n-3] == '-' && t[n-2] == '0' {
			t[n-2] = t[n-1]
			t = t[:n-1]
		}
	}

	typ := byte(jsonbInt)

	for _, c := range t {
		if c == '.' || c == 'e' {
			typ = jsonbFloat
			break
		}
	}

	w.b = appendJSONBHeader(w.b, typ, len(t))
	w.b = append(w.b, t...)

	return true
}

// jsonbPlain marks the ASCII bytes that encoding/json writes in a string as they are: all but the
// control characters, '"' and '\' (JSON's escapes) and '<', '>' and '&' (its HTML-safe escapes).
var jsonbPlain = func() (plain [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		plain[c] = true
	}

	for _, c := range `"\<>&` {
		plain[c] = false
	}

	return
}()

// jsonString appends a string as SQLite parses encoding/json's text of it (json.Marshal, which
// the sjson types and the schema's keys use): a string that encoding/json writes as it is is that
// TEXT; any other is written by encoding/json itself and converted.
func (w *jsonbWriter) jsonString(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if !jsonbPlain[c] {
				return w.jsonText(s)
			}

			i++

			continue
		}

		// encoding/json writes invalid UTF-8 as \ufffd, and escapes U+2028 and U+2029 (JSONP).
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
			return w.jsonText(s)
		}

		i += size
	}

	w.b = appendJSONBHeader(w.b, jsonbText, len(s))
	w.b = append(w.b, s...)

	return true
}

// jsonText appends a string that encoding/json escapes something of: the text between the quotes
// of json.Marshal's, TEXTJ when it has an escape (all of encoding/json's are JSON's own: \" \\ \b
// \f \n \r \t \uXXXX), TEXT otherwise. Anything else is left to SQLite.
func (w *jsonbWriter) jsonText(s string) bool {
	text, err := json.Marshal(s)
	if err != nil || len(text) < 2 || text[0] != '"' || text[len(text)-1] != '"' {
		return false
	}

	body := text[1 : len(text)-1]
	typ := byte(jsonbText)

	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '\\':
			typ = jsonbTextJ

			switch i++; {
			case i >= len(body):
				return false
			case body[i] == 'u':
				if i+4 >= len(body) || !isHex4(body[i+1:i+5]) {
					return false
				}
			case !isSimpleEscape(body[i]):
				return false
			}
		case c < 0x20 || c == '"':
			return false
		}
	}

	w.b = appendJSONBHeader(w.b, typ, len(body))
	w.b = append(w.b, body...)

	return true
}

// isSimpleEscape reports whether `\c` is one of JSON's escapes of one character.
func isSimpleEscape(c byte) bool {
	switch c {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	default:
		return false
	}
}

// isHex4 reports whether b is four hexadecimal digits.
func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}

	return len(b) == 4
}

// open starts an array or an object: one header byte until close knows the payload's size (SQLite
// reserves a header and changes it likewise).
func (w *jsonbWriter) open() (int, bool) {
	if w.depth++; w.depth > jsonbMaxDepth {
		return 0, false
	}

	w.b = append(w.b, 0)

	return len(w.b) - 1, true
}

// close ends the array or object started at at: its header becomes as long as its payload's size
// needs, the payload moving after it.
func (w *jsonbWriter) close(at int, typ byte) {
	w.depth--

	size := len(w.b) - at - 1
	var buf [5]byte
	h := appendJSONBHeader(buf[:0], typ, size)

	if extra := len(h) - 1; extra > 0 {
		w.b = append(w.b, h[1:]...) // room for the longer header
		copy(w.b[at+1+extra:], w.b[at+1:at+1+size])
	}

	copy(w.b[at:], h)
}

// constant appends a constant object (a scalar's schema), which counts as one more level of
// nesting for SQLite.
func (w *jsonbWriter) constant(b []byte) bool {
	if w.depth+1 > jsonbMaxDepth {
		return false
	}

	w.b = append(w.b, b...)

	return true
}

// appendJSONBHeader appends a node's header: its type, and its payload's size in the fewest bytes.
func appendJSONBHeader(b []byte, typ byte, size int) []byte {
	switch {
	case size <= 11:
		return append(b, typ|byte(size)<<4)
	case size <= 0xff:
		return append(b, typ|0xc0, byte(size))
	case size <= 0xffff:
		return append(b, typ|0xd0, byte(size>>8), byte(size))
	default:
		return append(b, typ|0xe0, byte(size>>24), byte(size>>16), byte(size>>8), byte(size))
	}
}

// The constant parts of the schema (schema.go), written once as SQLite parses their text.
var (
	jsonbKeySchema = jsonbTexts("$s")
	jsonbKeyP      = jsonbTexts("p")
	jsonbKeyK      = jsonbTexts("$k")

	jsonbEmptyObject = jsonbObjectOf()

	jsonbElemObjectPrefix  = jsonbTexts("t", "object", "$s")
	jsonbElemArrayPrefix   = jsonbTexts("t", "array", "i")
	jsonbElemBinDataPrefix = jsonbTexts("t", "binData", "s")
	jsonbElemRegexPrefix   = jsonbTexts("t", "regex", "o")

	jsonbElemDouble    = jsonbObjectOf("t", "double")
	jsonbElemString    = jsonbObjectOf("t", "string")
	jsonbElemObjectID  = jsonbObjectOf("t", "objectId")
	jsonbElemBool      = jsonbObjectOf("t", "bool")
	jsonbElemDate      = jsonbObjectOf("t", "date")
	jsonbElemNull      = jsonbObjectOf("t", "null")
	jsonbElemInt       = jsonbObjectOf("t", "int")
	jsonbElemTimestamp = jsonbObjectOf("t", "timestamp")
	jsonbElemLong      = jsonbObjectOf("t", "long")
)

// jsonbTexts returns plain strings as consecutive TEXT nodes.
func jsonbTexts(texts ...string) []byte {
	var w jsonbWriter

	for _, t := range texts {
		if !w.jsonString(t) {
			panic(t)
		}
	}

	return w.b
}

// jsonbObjectOf returns the object of the given plain keys and strings.
func jsonbObjectOf(texts ...string) []byte {
	var w jsonbWriter

	at, _ := w.open()
	w.b = append(w.b, jsonbTexts(texts...)...)
	w.close(at, jsonbObject)

	return w.b
}
