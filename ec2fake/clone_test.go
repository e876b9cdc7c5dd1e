package ec2fake

import (
	"reflect"
	"testing"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
)

// sharesMemory reports the first path at which a and b hold the same
// pointer or the same slice backing array.
func sharesMemory(a, b reflect.Value, path string) string {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		return sharesMemory(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Len() == 0 || b.Len() == 0 {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		for i := range min(a.Len(), b.Len()) {
			if p := sharesMemory(a.Index(i), b.Index(i), path+"[]"); p != "" {
				return p
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if a.Type().Field(i).IsExported() {
				if p := sharesMemory(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); p != "" {
					return p
				}
			}
		}
	}
	return ""
}

func TestCloneImageSharesNothing(t *testing.T) {
	var img ec2types.Image
	fill(reflect.ValueOf(&img).Elem(), "Image", 0)
	var byHand ec2types.Image
	cloneImage(&byHand, &img)
	for name, c := range map[string]ec2types.Image{"cloneImage": byHand, "clone": clone(img)} {
		if diff := cmp.Diff(img, c, ignoreUnexported); diff != "" {
			t.Errorf("%s changed the image (-original +copy):\n%s", name, diff)
		}
		if p := sharesMemory(reflect.ValueOf(img), reflect.ValueOf(c), "Image"); p != "" {
			t.Errorf("%s shares %s with the original", name, p)
		}
	}
	var empty ec2types.Image
	var emptyCopy ec2types.Image
	cloneImage(&emptyCopy, &empty)
	if diff := cmp.Diff(empty, emptyCopy, ignoreUnexported); diff != "" {
		t.Errorf("cloneImage of the zero image (-want +got):\n%s", diff)
	}
}

func TestCloneInstanceTypeSharesNothing(t *testing.T) {
	var info ec2types.InstanceTypeInfo
	fill(reflect.ValueOf(&info).Elem(), "InstanceTypeInfo", 0)
	c := clone(info)
	if diff := cmp.Diff(info, c, ignoreUnexported); diff != "" {
		t.Errorf("clone changed the instance type (-original +copy):\n%s", diff)
	}
	if p := sharesMemory(reflect.ValueOf(info), reflect.ValueOf(c), "InstanceTypeInfo"); p != "" {
		t.Errorf("clone shares %s with the original", p)
	}
}
