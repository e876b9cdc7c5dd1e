package cli

import (
	"strconv"

	"github.com/ec2select/ec2select/amiselect"
)

// AMIs is the one way the examples count a selection: an AMI is an image
// (one ID), and one image may serve several variants (the x86_64
// Bottlerocket image serves standard and Neuron types), so the variants are
// counted beside it when they differ: "4 AMIs (5 variants)".
func AMIs(amis []amiselect.AMI) string {
	ids := map[string]bool{}
	for _, a := range amis {
		ids[a.ID] = true
	}
	s := Count(len(ids), "AMI")
	if len(amis) != len(ids) {
		s += " (" + Count(len(amis), "variant") + ")"
	}
	return s
}

// Count is n and noun, plural unless n is 1.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
