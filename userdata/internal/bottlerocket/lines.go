package bottlerocket

import (
	"bytes"

	"github.com/pelletier/go-toml/v2/unstable"
)

// Lines maps each key path of a TOML document to the line (1-based) where
// the key is written: a key = value line, a [table] or [[array]] header,
// or a key of an inline table. A table only implied by a longer header or
// dotted key gets that header's or key's line. Paths are joined with
// [JoinKey]. Lines reads as far as the document parses.
type Lines map[string]int

// ReadLines indexes text with go-toml's own parser: every path when depth
// is 0, else the paths of at most depth segments (settings.kubernetes.max-pods
// is 3), which is cheaper when the document has long maps.
func ReadLines(text []byte, depth int) Lines {
	r := lineReader{lines: Lines{}, text: text, line: 1, depth: depth}
	r.p.Reset(text)
	var table []byte
	tableDepth := 0
	for r.p.NextExpression() {
		e := r.p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			it := e.Key()
			path, n := r.key(nil, 0, &it)
			table, tableDepth = bytes.Clone(path), n
		case unstable.KeyValue:
			r.keyValue(table, tableDepth, e)
		}
	}
	return r.lines
}

// Line returns the line of path, 0 if it is not written.
func (l Lines) Line(path ...string) int { return l[JoinKey(path)] }

type lineReader struct {
	lines Lines
	p     unstable.Parser
	text  []byte
	buf   []byte
	depth int // the longest path to record, 0 for all
	// offset and line: the line at offset, counted forward as keys come
	// in document order.
	offset, line int
}

// lineOf returns the line of a byte offset at or after the last one asked.
func (r *lineReader) lineOf(offset int) int {
	if offset < r.offset { // not in document order: count from the start
		r.offset, r.line = 0, 1
	}
	r.line += bytes.Count(r.text[r.offset:offset], []byte("\n"))
	r.offset = offset
	return r.line
}

// key records every prefix of base (a joined path of n segments) followed
// by the key's parts, and returns the full joined path, which the next call
// overwrites, and its length in segments. Past r.depth it stops recording.
func (r *lineReader) key(base []byte, n int, it *unstable.Iterator) ([]byte, int) {
	buf := append(r.buf[:0], base...)
	for it.Next() {
		if n++; r.depth > 0 && n > r.depth {
			break
		}
		k := it.Node()
		if len(buf) > 0 {
			buf = append(buf, '.')
		}
		buf = appendQuoted(buf, k.Data)
		if r.lines[string(buf)] == 0 {
			r.lines[string(buf)] = r.lineOf(int(k.Raw.Offset))
		}
	}
	r.buf = buf
	return buf, n
}

func (r *lineReader) keyValue(base []byte, n int, e *unstable.Node) {
	if r.depth > 0 && n >= r.depth {
		return
	}
	it := e.Key()
	path, n := r.key(base, n, &it)
	if v := e.Value(); v.Kind == unstable.InlineTable {
		path = bytes.Clone(path)
		kvs := v.Children()
		for kvs.Next() {
			r.keyValue(path, n, kvs.Node())
		}
	}
}
