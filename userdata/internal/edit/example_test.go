package edit_test

import (
	"fmt"

	"github.com/ec2select/ec2select/userdata/internal/edit"
)

func ExampleParseSed() {
	s, err := edit.ParseSed(`/^KUBELET_EXTRA_ARGS=/a KUBELET_EXTRA_ARGS+=" --v=2"`)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := s.Apply("KUBELET_EXTRA_ARGS=\"${KUBELET_EXTRA_ARGS:-}\"\n")
	fmt.Print(out)
	// Output:
	// KUBELET_EXTRA_ARGS="${KUBELET_EXTRA_ARGS:-}"
	// KUBELET_EXTRA_ARGS+=" --v=2"
}

func ExampleParseJQ() {
	edits, err := edit.ParseJQ(`.registerWithTaints += [{key: "a", effect: "NoSchedule"}]`, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(edits[0].Path, edits[0].Value)
	// Output: [registerWithTaints] [map[effect:NoSchedule key:a]]
}
