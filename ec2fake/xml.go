package ec2fake

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"reflect"
	"strconv"
	"time"

	smithytime "github.com/aws/smithy-go/time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// xmlField names the EC2 Query element of one Go field; item is the element
// of each entry when the field is a list.
type xmlField struct {
	goName string
	elem   string
	item   string
}

// xmlEncoder writes SDK structs in the EC2 Query XML the SDK's own
// deserializers read. Its plans are built once, when the Handler is created,
// and only read afterwards, so one encoder serves concurrent requests.
type xmlEncoder struct {
	plans map[reflect.Type][]fieldPlan
	// unnamed lists the fields ("Type.Field") of an SDK release newer than
	// the element tables, which are left out of answers: their element
	// names are not known here. TestXMLShapesCoverEveryField fails on any.
	unnamed []string
}

type fieldPlan struct {
	index int
	elem  string
	item  string
}

var timeType = reflect.TypeOf(time.Time{})

func newXMLEncoder() (*xmlEncoder, error) {
	e := &xmlEncoder{plans: map[reflect.Type][]fieldPlan{}}
	for _, t := range append([]reflect.Type{reflect.TypeOf(ec2types.Image{}), reflect.TypeOf(ec2types.InstanceTypeInfo{})}, offeringsXMLRoots...) {
		if !e.plan(t) {
			return nil, fmt.Errorf("ec2fake: no EC2 element names for %s", t)
		}
	}
	return e, nil
}

// shapeOf returns the element names of struct type t.
func shapeOf(t reflect.Type) ([]xmlField, bool) {
	if shape, ok := xmlShapes[t.Name()]; ok {
		return shape, true
	}
	shape, ok := xmlShapesOfferings[t.Name()]
	return shape, ok
}

// plan records the element of every exported field of struct type t and of
// the struct types it reaches, and reports whether t has element names. A
// field with no element name, or of a struct type with none, is one a
// newer SDK release added: it is left out of answers (a client of that
// release reads it as absent, as from an EC2 that does not send it) and
// listed in unnamed, so that the ec2fake tests, run against the newest
// release, fail until it has a name.
func (e *xmlEncoder) plan(t reflect.Type) bool {
	if _, done := e.plans[t]; done || t == timeType {
		return true
	}
	shape, ok := shapeOf(t)
	if !ok {
		return false
	}
	byName := map[string]xmlField{}
	for _, f := range shape {
		byName[f.goName] = f
	}
	var plans []fieldPlan
	e.plans[t] = nil // mark in progress
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		f, ok := byName[sf.Name]
		if inner := structBehind(sf.Type); ok && inner != nil {
			ok = e.plan(inner)
		}
		if !ok {
			e.unnamed = append(e.unnamed, t.Name()+"."+sf.Name)
			continue
		}
		plans = append(plans, fieldPlan{index: i, elem: f.elem, item: f.item})
	}
	e.plans[t] = plans
	return true
}

// structBehind returns the struct type a field holds, through pointers and
// slices, or nil for scalars.
func structBehind(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct {
		return t
	}
	return nil
}

func (e *xmlEncoder) writeStruct(buf *bytes.Buffer, v reflect.Value) {
	for _, p := range e.plans[v.Type()] {
		e.writeField(buf, p, v.Field(p.index))
	}
}

func (e *xmlEncoder) writeField(buf *bytes.Buffer, p fieldPlan, v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		e.writeField(buf, p, v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		open(buf, p.elem)
		for i := range v.Len() {
			open(buf, p.item)
			e.writeValue(buf, v.Index(i))
			closeTag(buf, p.item)
		}
		closeTag(buf, p.elem)
	case reflect.String:
		if v.Len() == 0 && v.Type().Name() != "string" {
			return // an enum's zero value means the field is absent
		}
		open(buf, p.elem)
		e.writeValue(buf, v)
		closeTag(buf, p.elem)
	default:
		open(buf, p.elem)
		e.writeValue(buf, v)
		closeTag(buf, p.elem)
	}
}

func (e *xmlEncoder) writeValue(buf *bytes.Buffer, v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			e.writeValue(buf, v.Elem())
		}
	case reflect.Struct:
		if v.Type() == timeType {
			text(buf, smithytime.FormatDateTime(v.Interface().(time.Time)))
			return
		}
		e.writeStruct(buf, v)
	case reflect.String:
		text(buf, v.String())
	case reflect.Bool:
		buf.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		buf.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Float32, reflect.Float64:
		buf.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, 64))
	}
}

func open(buf *bytes.Buffer, name string) {
	buf.WriteByte('<')
	buf.WriteString(name)
	buf.WriteByte('>')
}

func closeTag(buf *bytes.Buffer, name string) {
	buf.WriteString("</")
	buf.WriteString(name)
	buf.WriteByte('>')
}

func text(buf *bytes.Buffer, s string) {
	// EscapeText also escapes \t, \n and \r, so they survive the parser's
	// line-ending normalization.
	_ = xml.EscapeText(buf, []byte(s))
}

const xmlHeader = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"

const ec2Namespace = "http://ec2.amazonaws.com/doc/2016-11-15/"

func (e *xmlEncoder) imagesResponse(requestID string, images []ec2types.Image, nextToken *string) []byte {
	return listResponse(e, "DescribeImagesResponse", "imagesSet", requestID, images, nextToken)
}

func (e *xmlEncoder) instanceTypesResponse(requestID string, infos []ec2types.InstanceTypeInfo, nextToken *string) []byte {
	return listResponse(e, "DescribeInstanceTypesResponse", "instanceTypeSet", requestID, infos, nextToken)
}

// listResponse writes a Describe* answer: the response element, its
// request ID, the set of items and the next page's token, if any.
func listResponse[T any](e *xmlEncoder, response, set, requestID string, items []T, nextToken *string) []byte {
	var buf bytes.Buffer
	buf.WriteString(xmlHeader)
	buf.WriteString(`<` + response + ` xmlns="` + ec2Namespace + `">`)
	open(&buf, "requestId")
	text(&buf, requestID)
	closeTag(&buf, "requestId")
	open(&buf, set)
	for i := range items {
		open(&buf, "item")
		e.writeStruct(&buf, reflect.ValueOf(&items[i]).Elem())
		closeTag(&buf, "item")
	}
	closeTag(&buf, set)
	if nextToken != nil {
		open(&buf, "nextToken")
		text(&buf, *nextToken)
		closeTag(&buf, "nextToken")
	}
	buf.WriteString("</" + response + ">")
	return buf.Bytes()
}

// returnResponse writes the answer of an action that only reports success,
// such as DisableImage: <return>true</return>.
func returnResponse(response, requestID string, ok bool) []byte {
	var buf bytes.Buffer
	buf.WriteString(xmlHeader)
	buf.WriteString(`<` + response + ` xmlns="` + ec2Namespace + `">`)
	open(&buf, "requestId")
	text(&buf, requestID)
	closeTag(&buf, "requestId")
	open(&buf, "return")
	text(&buf, strconv.FormatBool(ok))
	closeTag(&buf, "return")
	buf.WriteString("</" + response + ">")
	return buf.Bytes()
}

// errorResponse is EC2's error document, which the SDK parses into a
// smithy.GenericAPIError with the same code and message.
func errorResponse(requestID, code, message string) []byte {
	var buf bytes.Buffer
	buf.WriteString(xmlHeader)
	buf.WriteString("<Response><Errors><Error>")
	open(&buf, "Code")
	text(&buf, code)
	closeTag(&buf, "Code")
	open(&buf, "Message")
	text(&buf, message)
	closeTag(&buf, "Message")
	buf.WriteString("</Error></Errors>")
	open(&buf, "RequestID")
	text(&buf, requestID)
	closeTag(&buf, "RequestID")
	buf.WriteString("</Response>")
	return buf.Bytes()
}
