package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"sigs.k8s.io/yaml"
)

// Document is one document of a manifest stream: its text and the 1-based
// line of the stream it starts on.
type Document struct {
	Line int
	Data []byte
}

// Split cuts data into its documents as kubectl does
// (k8s.io/apimachinery v0.35.3, pkg/util/yaml/decoder.go, YAMLReader.Read,
// and NewYAMLOrJSONDecoder): a stream whose first non-space character is
// '{' is a sequence of JSON values; otherwise a line that starts with
// "---" ends a document, and may be followed by spaces and a comment but
// nothing else. Documents that are empty or only comments are kept, with
// their lines; [ToJSON] makes them "null", which kubectl skips.
func Split(data []byte) ([]Document, error) {
	if bytes.HasPrefix(bytes.TrimLeftFunc(data, unicode.IsSpace), []byte("{")) {
		return splitJSON(data)
	}
	var docs []Document
	start, startOff, line := 1, 0, 1
	for pos := 0; pos < len(data); line++ {
		next := len(data)
		if end := bytes.IndexByte(data[pos:], '\n'); end >= 0 {
			next = pos + end + 1
		}
		if l := data[pos:next]; bytes.HasPrefix(l, []byte("---")) {
			rest := strings.TrimSpace(string(l[3:]))
			if rest != "" && rest[0] != '#' {
				return nil, fmt.Errorf("line %d: %q is not a document separator: kubectl allows only a comment after ---; put the rest on its own line", line, strings.TrimRight(string(l), "\r\n"))
			}
			docs = append(docs, Document{start, data[startOff:pos]})
			start, startOff = line+1, next
		}
		pos = next
	}
	return append(docs, Document{start, data[startOff:]}), nil
}

// splitJSON reads a stream of JSON values, as kubectl does when the input
// starts with '{'.
func splitJSON(data []byte) ([]Document, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var docs []Document
	for {
		offset := int(dec.InputOffset())
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %v; fix the JSON", lineAt(data, int(dec.InputOffset())), err)
		}
		// The value starts after the whitespace before it.
		offset += len(data[offset:]) - len(bytes.TrimLeftFunc(data[offset:], unicode.IsSpace))
		docs = append(docs, Document{lineAt(data, offset), raw})
	}
}

func lineAt(data []byte, offset int) int {
	return 1 + bytes.Count(data[:min(offset, len(data))], []byte("\n"))
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// ToJSON converts one document to the JSON kubectl sends for it, with
// sigs.k8s.io/yaml's YAMLToJSON, which is what kubectl's decoder runs
// (apimachinery pkg/util/yaml/decoder.go, YAMLToJSONDecoder.Decode, into a
// RawExtension, so no Go type steers the conversion): YAML 1.1 plain
// scalars (go.yaml.in/yaml/v2 resolve.go: y, yes, on, true are true; n,
// no, off, false are false; ~ and null are null; 08 and 1e3 are numbers),
// and a key written twice keeps its last value (decode.go, setMapIndex:
// only strict decoding refuses it). A JSON document is kept as it is,
// except that a key written twice is an error: the API server's strict
// decoding refuses it. Errors name the line within the document.
func ToJSON(doc []byte) ([]byte, error) {
	if bytes.HasPrefix(bytes.TrimLeftFunc(doc, unicode.IsSpace), []byte("{")) {
		if err := noDuplicateKeys(doc); err != nil {
			return nil, err
		}
		return bytes.TrimSpace(doc), nil
	}
	j, err := yaml.YAMLToJSON(doc)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		return nil, errors.New(msg)
	}
	return j, nil
}

// ErrorLine returns the line within the document that an error of ToJSON
// names, or 0.
func ErrorLine(err error) int {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// noDuplicateKeys walks a JSON value and reports a key written twice in
// one object.
func noDuplicateKeys(doc []byte) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	var walk func(path string) error
	walk = func(path string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key := k.(string)
				if seen[key] {
					return fmt.Errorf("line %d: field %q is written twice in %s; the API server's strict decoding refuses it, so keep one", lineAt(doc, int(dec.InputOffset())), key, orRoot(path))
				}
				seen[key] = true
				if err := walk(path + "." + key); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if err := walk(fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		}
		return nil
	}
	return walk("")
}

func orRoot(path string) string {
	if path == "" {
		return "the document"
	}
	return strings.TrimPrefix(path, ".")
}

// Decode reads JSON into the values the API server decodes from what
// kubectl sends for it: objects, lists, strings, booleans and nil, an
// int64 for a number that is an integer and fits, a float64 for any other.
// kubectl decodes a document into an unstructured object and encodes it
// again before sending it (cli-runtime pkg/resource, then the REST
// client's body), and encoding/json writes a float64 with no fraction as
// an integer ("2.0" and "1e3" go out as 2 and 1000), which the API
// server's decoding (apimachinery pkg/util/json, sigs.k8s.io/json with
// integers preserved) reads as an int64.
func Decode(j []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data follows the first JSON value; pass one object per document")
	}
	return numbers(v)
}

func numbers(v any) (any, error) {
	switch v := v.(type) {
	case json.Number:
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return n, nil
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return nil, fmt.Errorf("the number %s is out of range", v)
		}
		if f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 {
			return int64(f), nil
		}
		return f, nil
	case map[string]any:
		for k, e := range v {
			n, err := numbers(e)
			if err != nil {
				return nil, err
			}
			v[k] = n
		}
	case []any:
		for i, e := range v {
			n, err := numbers(e)
			if err != nil {
				return nil, err
			}
			v[i] = n
		}
	}
	return v, nil
}
