// NRAD's addition to FerretDB v1.24.2 (infra/ferretdb/patches, docs/adr/0002): documents for the
// tests of sjson.MarshalJSONB (handler/sjson/nrad_jsonb_test.go) and of JSONB tables
// (backends/sqlite/nrad_jsonb_test.go), which compare what they store with what SQLite's jsonb()
// made of sjson.Marshal's text. This package is only imported by tests.

package testutil

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// NradDocuments returns n documents generated from seed: every type sjson stores, documents and
// arrays nested a few levels (empty ones too), numbers at their edges and at random, strings with
// every class of character encoding/json escapes (JSON's, HTML's, U+2028/U+2029, invalid UTF-8)
// and without, in keys as in values. Each has a distinct ObjectID `_id` first. Top-level keys have
// no quote, backslash or NUL (sjson.Marshal writes them unescaped; MarshalJSONB leaves such
// documents to SQLite, tested apart).
func NradDocuments(seed uint64, n int) []*types.Document {
	g := &nradGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	docs := make([]*types.Document, n)

	for i := range docs {
		d := must.NotFail(types.NewDocument("_id", g.id(uint32(i))))

		fields := g.r.IntN(12)
		if g.r.IntN(10) == 0 {
			fields = 40 + g.r.IntN(40)
		}

		for j := range fields {
			d.Set(g.topKey(j), g.value(0))
		}

		docs[i] = d
	}

	return docs
}

// NradEdgeDocuments returns hand-picked documents: empty ones, every size of every JSONB header
// (strings, arrays and objects whose payloads just fit or just exceed 11, 255 and 65,535 bytes),
// large arrays, numbers at their edges, every escaped character alone, deep nesting, top-level keys
// with control characters. Each has a distinct ObjectID `_id` first (from 0xEE000000 up).
func NradEdgeDocuments() []*types.Document {
	g := &nradGen{r: rand.New(rand.NewPCG(1, 2))}
	var docs []*types.Document

	add := func(pairs ...any) {
		pairs = append([]any{"_id", g.id(0xEE000000 + uint32(len(docs)))}, pairs...)
		docs = append(docs, must.NotFail(types.NewDocument(pairs...)))
	}

	add()
	add("empty", must.NotFail(types.NewDocument()), "emptyArray", types.MakeArray(0))
	add("nested", must.NotFail(types.NewDocument("a", must.NotFail(types.NewDocument("b", types.MakeArray(0))))))

	// Strings (and so TEXT and TEXTJ payloads) around every header size.
	for _, n := range []int{0, 1, 11, 12, 13, 254, 255, 256, 257, 65534, 65535, 65536, 65537, 70000} {
		add("s", strings.Repeat("a", n))
		add("s", strings.Repeat("é", n/2))

		if n > 0 {
			add("s", strings.Repeat("a", n-1)+"<")      // TEXTJ of n+5 bytes
			add("s", strings.Repeat("\n", max(n/2, 1))) // TEXTJ of twice as many
			add("s", strings.Repeat("\x01", max(n/6, 1)))
		}
	}

	// Arrays (of true, one byte each) and objects around every header size (an object of n int32
	// fields takes about 7n bytes, its schema about 13n).
	for _, n := range []int{1, 11, 12, 255, 256, 65535, 65536} {
		a := types.MakeArray(n)
		for range n {
			a.Append(true)
		}

		add("a", a)
	}

	for _, n := range []int{1, 2, 5, 6, 20, 40, 100, 9000, 10000} {
		pairs := make([]any, 0, 2*n)
		for i := range n {
			pairs = append(pairs, strconv.Itoa(i), int32(i%10))
		}

		add("d", must.NotFail(types.NewDocument(pairs...)))
	}

	big := types.MakeArray(20000)
	for i := range 20000 {
		big.Append(strconv.Itoa(i))
	}

	add("big", big)

	// Numbers at their edges.
	for _, f := range nradEdgeDoubles {
		add("f", f, "nested", must.NotFail(types.NewArray(f)))
	}

	add(
		"i32min", int32(math.MinInt32), "i32max", int32(math.MaxInt32), "i32zero", int32(0), "i32neg", int32(-1),
		"i64min", int64(math.MinInt64), "i64max", int64(math.MaxInt64), "i64zero", int64(0), "i64neg", int64(-1),
		"tsZero", types.Timestamp(0), "tsMax", types.Timestamp(math.MaxUint64), "ts", types.NextTimestamp(time.Unix(1700000000, 0)),
		"dateZero", time.Time{}, "dateEpoch", time.UnixMilli(0).UTC(), "dateNeg", time.UnixMilli(-1).UTC(),
		"dateMax", time.UnixMilli(math.MaxInt64).UTC(), "dateMin", time.UnixMilli(math.MinInt64).UTC(),
		"date", time.Date(2026, 11, 24, 13, 30, 0, 123_000_000, time.UTC),
	)

	// Every escaped character alone and among others, in keys and values, nested.
	for _, s := range nradSpecial {
		nested := must.NotFail(types.NewDocument(s, s, "x"+s, types.Regex{Pattern: s, Options: s}))
		add("s", s, "s2", "x"+s+"y", "d", nested, "a", must.NotFail(types.NewArray(s, nested)))
	}

	add(
		"bin", types.Binary{Subtype: types.BinaryGeneric}, "binEmpty", types.Binary{B: []byte{}, Subtype: types.BinaryUser},
		"bin1", types.Binary{B: []byte{0xff}, Subtype: types.BinaryUUID}, "bin3", types.Binary{B: []byte("abc"), Subtype: types.BinaryMD5},
		"bigBin", types.Binary{B: make([]byte, 70000), Subtype: types.BinaryEncrypted},
		"re", types.Regex{}, "re2", types.Regex{Pattern: "^a.*b$", Options: "imsx"},
		"null", types.Null, "t", true, "f", false, "oid", types.ObjectID{},
	)

	// Top-level keys with control characters: sjson.Marshal writes them raw, SQLite stores TEXT5.
	add("a\tb", int32(1), "\x01", "x", "line\nbreak", must.NotFail(types.NewDocument("in\nner", int32(2))), "\x1f", types.Null)
	add("a long key\twith a tab", int32(1), strings.Repeat("\x02", 300), int32(2)) // TEXT5 of 1- and 2-byte sizes

	// Top-level keys encoding/json would escape but Marshal writes raw.
	add("<>&", int32(1), "\u2028", int32(2), "é", int32(3), "\x7f", int32(4), "'", int32(5), "/", int32(6))

	// Deep nesting, alternating documents and arrays.
	var deep any = "bottom"
	for i := range 40 {
		if i%2 == 0 {
			deep = must.NotFail(types.NewArray(deep, int32(i)))
		} else {
			deep = must.NotFail(types.NewDocument("k", deep, "i", int64(i)))
		}
	}

	add("deep", deep)

	return docs
}

// NradNestedDocument returns a document with `levels` documents nested in it ({"n": {"n": ...}}).
func NradNestedDocument(levels int) *types.Document {
	d := must.NotFail(types.NewDocument("v", int32(0)))
	for range levels {
		d = must.NotFail(types.NewDocument("n", d))
	}

	return d
}

// nradEdgeDoubles are the doubles whose text (encoding/json's) is at an edge: signed zeros, the
// switches to exponent form (1e-6, 1e21), the smallest and largest, integers past 2^53.
var nradEdgeDoubles = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.1, -0.1, 0.5, 1.5, 100, 1e6, 1e20, 1e21, -1e21, 1e22, 123456789012345678,
	1e-6, 9.999999e-7, 1e-7, 1.5e-7, 1e-300, 1e308, -1e308, 1.7976931348623157e308, -1.7976931348623157e308,
	5e-324, -5e-324, math.SmallestNonzeroFloat64, 2.2250738585072014e-308, 1 << 53, 1<<53 + 2, -(1 << 53),
	9007199254740993, math.Pi, math.E, 1.0 / 3, 2.0 / 3, 1e15, 1e16, 1e17, 123.456e10, 0.000123,
}

// nradSpecial are the characters encoding/json escapes (JSON's, HTML's, U+2028, U+2029, invalid
// UTF-8) and others near them.
var nradSpecial = []string{
	`"`, `\`, "<", ">", "&", "\u2028", "\u2029", "\x00", "\x01", "\b", "\t", "\n", "\v", "\f", "\r", "\x1b", "\x1f",
	"\x7f", "\u0080", "é", "漢字", "😀", "\ufffd", "\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80",
	"'", "/", `\u0041`, `\n`, "$", ".", " ", "\u00a0", "\u2027", "\u202a", "\ufeff",
}

// nradGen generates values.
type nradGen struct {
	r *rand.Rand
}

// id returns an ObjectID that is distinct for each n.
func (g *nradGen) id(n uint32) types.ObjectID {
	var id types.ObjectID
	binary.BigEndian.PutUint32(id[:4], n)
	binary.BigEndian.PutUint64(id[4:], g.r.Uint64())

	return id
}

// topKey returns a distinct top-level key for field j: no quote, backslash or NUL, sometimes a
// control character or a character encoding/json would escape.
func (g *nradGen) topKey(j int) string {
	k := "f" + strconv.Itoa(j)

	switch g.r.IntN(20) {
	case 0:
		k += "\t<é>&"
	case 1:
		k += "\u2028\x01"
	case 2:
		k = "名前" + k
	}

	return k
}

// nradPlain holds the plain ASCII characters of generated strings.
const nradPlain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_,:;!?()[]{}@#%*+=~`|^"

// str returns a string: mostly plain ASCII, sometimes with special characters, of lengths that
// sometimes reach the header sizes.
func (g *nradGen) str() string {
	var n int

	switch g.r.IntN(20) {
	case 0:
		n = 0
	case 1:
		n = 200 + g.r.IntN(100)
	case 2:
		n = 11 + g.r.IntN(3)
	default:
		n = 1 + g.r.IntN(30)
	}

	var sb strings.Builder

	special := g.r.IntN(4) == 0

	for sb.Len() < n {
		if special && g.r.IntN(5) == 0 {
			sb.WriteString(nradSpecial[g.r.IntN(len(nradSpecial))])
			continue
		}

		sb.WriteByte(nradPlain[g.r.IntN(len(nradPlain))])
	}

	return sb.String()
}

// double returns an edge double or a random one (random bits or magnitudes), never NaN or infinite.
func (g *nradGen) double() float64 {
	switch g.r.IntN(4) {
	case 0:
		return nradEdgeDoubles[g.r.IntN(len(nradEdgeDoubles))]
	case 1:
		for {
			if f := math.Float64frombits(g.r.Uint64()); !math.IsNaN(f) && !math.IsInf(f, 0) {
				return f
			}
		}
	case 2:
		return float64(g.r.Int64N(1<<40) - 1<<39)
	default:
		return (g.r.Float64() - 0.5) * math.Pow(10, float64(g.r.IntN(60)-30))
	}
}

// value returns a value of any type; documents and arrays nest up to four levels.
func (g *nradGen) value(depth int) any {
	kinds := 15
	if depth >= 4 {
		kinds = 13
	}

	switch g.r.IntN(kinds) {
	case 0:
		return g.double()
	case 1, 2:
		return g.str()
	case 3:
		var b []byte
		if g.r.IntN(5) > 0 {
			b = make([]byte, g.r.IntN(40))
			for i := range b {
				b[i] = byte(g.r.Uint32())
			}
		}

		subtypes := []types.BinarySubtype{0, 1, 2, 3, 4, 5, 6, 7, 0x80, 0xff}

		return types.Binary{B: b, Subtype: subtypes[g.r.IntN(len(subtypes))]}
	case 4:
		return g.id(g.r.Uint32())
	case 5:
		return g.r.IntN(2) == 0
	case 6:
		return time.UnixMilli(g.r.Int64N(1<<45) - 1<<44).UTC()
	case 7:
		return types.Null
	case 8:
		return types.Regex{Pattern: g.str(), Options: []string{"", "i", "ms", "imsx", g.str()}[g.r.IntN(5)]}
	case 9:
		return []int32{math.MinInt32, math.MaxInt32, 0, -1, 1}[g.r.IntN(5)] + int32(g.r.IntN(3))
	case 10:
		return int32(g.r.Uint32())
	case 11:
		return types.Timestamp(g.r.Uint64() >> g.r.IntN(64))
	case 12:
		return int64(g.r.Uint64()) >> g.r.IntN(64)
	case 13:
		d := types.MakeDocument(0)

		for i := range g.r.IntN(6) {
			d.Set(g.str()+"#"+strconv.Itoa(i), g.value(depth+1))
		}

		return d
	default:
		n := g.r.IntN(8)
		if g.r.IntN(10) == 0 {
			n = 100 + g.r.IntN(200)
		}

		a := types.MakeArray(n)
		for range n {
			a.Append(g.value(depth + 1))
		}

		return a
	}
}
