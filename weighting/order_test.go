package weighting

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestOrder(t *testing.T) {
	pool := func(name string, weight int32) NodePool { return NodePool{Name: name, Weight: weight} }
	in := []NodePool{pool("b", 10), pool("none", 0), pool("a", 10), pool("z", 1), pool("c", 10), pool("heavy", 100), pool("also-none", 0)}
	want := []NodePool{pool("heavy", 100), pool("c", 10), pool("b", 10), pool("a", 10), pool("z", 1), pool("none", 0), pool("also-none", 0)}
	before := cmp.Diff(nil, in)
	got := Order(in)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Order mismatch (-want +got):\n%s", diff)
	}
	if cmp.Diff(nil, in) != before {
		t.Errorf("Order changed its argument")
	}
	if got := Order(nil); len(got) != 0 {
		t.Errorf("Order(nil) = %v", got)
	}
}

// refOrder is Karpenter's comparator, applied by insertion sort: a pool
// goes before another when its weight is higher, or equal with a name
// later in the alphabet. Equal pools keep their order.
func refOrder(pools []NodePool) []NodePool {
	out := make([]NodePool, 0, len(pools))
	for _, np := range pools {
		i := len(out)
		for i > 0 && (np.Weight > out[i-1].Weight || np.Weight == out[i-1].Weight && np.Name > out[i-1].Name) {
			i--
		}
		out = append(out[:i], append([]NodePool{np}, out[i:]...)...)
	}
	return out
}

func TestOrderProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pools := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) NodePool {
			return NodePool{
				Name:   rapid.SampledFrom([]string{"a", "b", "default", "default-flex", "default-rest", "z"}).Draw(t, "name"),
				Weight: rapid.SampledFrom([]int32{0, 1, 2, 50, 100}).Draw(t, "weight"),
				Labels: map[string]string{"id": rapid.StringMatching(`[a-z]{1,3}`).Draw(t, "id")},
			}
		}), 0, 12).Draw(t, "pools")
		if diff := cmp.Diff(refOrder(pools), Order(pools)); diff != "" {
			t.Fatalf("Order disagrees with the reference (-ref +got):\n%s", diff)
		}
	})
}
