package userdata

import (
	"reflect"
	"slices"
	"testing"
	"time"
)

// TestKubeletFieldsAt: each row of kubeletFields reaches the KubeletConfig
// field it names, with the Go type its kind reads; and every field but
// ClusterDNS (read on its own, as a list) has a row.
func TestKubeletFieldsAt(t *testing.T) {
	kinds := map[valueKind]reflect.Type{
		kindInt: reflect.TypeFor[*int32](), kindPercentString: reflect.TypeFor[*int32](), kindBool: reflect.TypeFor[*bool](),
		kindMap: reflect.TypeFor[map[string]string](), kindDurations: reflect.TypeFor[map[string]time.Duration](),
	}
	var c KubeletConfig
	cv := reflect.ValueOf(&c).Elem()
	var named []string
	for _, f := range kubeletFields {
		field := cv.FieldByName(f.field)
		if !field.IsValid() {
			t.Errorf("%s is not a KubeletConfig field", f.field)
			continue
		}
		if got := reflect.ValueOf(f.at(&c)); got.Pointer() != field.Addr().Pointer() || got.Type().Elem() != field.Type() {
			t.Errorf("%s: at reaches another field", f.field)
		}
		if want := kinds[f.kind]; field.Type() != want {
			t.Errorf("%s is a %v; its kind reads a %v", f.field, field.Type(), want)
		}
		named = append(named, f.field)
	}
	for i := range cv.NumField() {
		if name := cv.Type().Field(i).Name; name != "ClusterDNS" && !slices.Contains(named, name) {
			t.Errorf("KubeletConfig.%s has no row in kubeletFields", name)
		}
	}
}
