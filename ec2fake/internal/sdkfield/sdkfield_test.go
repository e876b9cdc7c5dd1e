package sdkfield

import (
	"testing"
	"time"
)

type watermark struct {
	Key     *string
	Created *time.Time
}

type image struct {
	Name       *string
	Watermarks []watermark
	hidden     *string
}

func TestSetGet(t *testing.T) {
	var img image
	name := "al2023"
	if !Set(&img, "Name", &name) || img.Name != &name {
		t.Fatalf("Set(Name) did not store the pointer: %+v", img)
	}
	if got, ok := Get[*string](&img, "Name"); !ok || got != &name {
		t.Errorf("Get(Name) = %v, %v", got, ok)
	}
	// A field the release lacks, one of another type, an unexported one:
	// nothing is written, nothing is found.
	if Set(&img, "PublicSsmParameterName", &name) {
		t.Error("Set of a missing field reported success")
	}
	if Set(&img, "Name", 3) {
		t.Error("Set of a field of another type reported success")
	}
	if Set(&img, "hidden", &name) || img.hidden != nil {
		t.Error("Set wrote an unexported field")
	}
	if _, ok := Get[*int32](&img, "Name"); ok {
		t.Error("Get of the wrong type reported success")
	}
	if _, ok := Get[*string](img, "Name"); ok {
		t.Error("Get through a value, not a pointer, reported success")
	}
}

func TestEach(t *testing.T) {
	a, b := "a", "b"
	img := image{Watermarks: []watermark{{Key: &a}, {Key: &b}}}
	var seen []string
	found := Each(&img, "Watermarks", func(e any) bool {
		k, _ := Get[*string](e, "Key")
		seen = append(seen, *k)
		return *k == "b"
	})
	if !found || len(seen) != 2 {
		t.Errorf("Each found %v after %v", found, seen)
	}
	if Each(&img, "ImageWatermarks", func(any) bool { return true }) {
		t.Error("Each over a missing field found something")
	}
}

// An interface-typed field takes a value, and a nil one.
func TestSetInterface(t *testing.T) {
	var doc struct{ Doc any }
	if !Set[any](&doc, "Doc", 3) || doc.Doc != 3 {
		t.Fatalf("Set(Doc, 3): %+v", doc)
	}
	if !Set[any](&doc, "Doc", nil) || doc.Doc != nil {
		t.Fatalf("Set(Doc, nil): %+v", doc)
	}
}
