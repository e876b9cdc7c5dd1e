package capacity

import (
	"errors"
	"fmt"

	"github.com/ec2select/ec2select/amiselect/amimap"
	"github.com/ec2select/ec2select/compat"
)

// Observation is what a registered node says about its capacity.
type Observation struct {
	// NodeLabels are the node's labels as the kubelet and the provisioner
	// set them; node.kubernetes.io/instance-type is required.
	NodeLabels map[string]string
	// ImageID is the AMI the node was launched from.
	ImageID string
	// MemoryBytes is the memory capacity the node reports.
	MemoryBytes int64
}

// Reasons Observe refuses an observation; match them with errors.Is.
var (
	ErrNoInstanceType = errors.New("node has no node.kubernetes.io/instance-type label")
	ErrInvalidName    = errors.New("an instance type or image ID must be 1 to 255 printable ASCII characters other than space, quote and backslash")
	ErrInvalidMemory  = errors.New("memory must be a positive number of bytes")
	ErrNoImage        = errors.New("observation has no image ID")
	ErrUnknownImage   = errors.New("the node's image is not among the selected AMIs")
	ErrNoCompatible   = errors.New("no selected AMI is compatible with the node")
	ErrNotMapped      = errors.New("the node's image is not the AMI its instance type maps to")
)

// Observe records what a node reports, keyed by its instance type and the
// AMI it runs, when that AMI is the one [amimap.Choose] picks from amis
// (in selection order) for the node, the rule [amimap.Map] applies to
// instance types. The node's requirements come from its labels
// ([compat.FromNodeLabels]: a node without GPU labels has no GPU) and are
// compared strictly, so a plain node is never filed under an NVIDIA AMI
// (karpenter-provider-aws #7925). A lower figure replaces a higher one; an
// equal one refreshes the TTL; a higher one is ignored. It reports whether
// it recorded, and when it refused, an error saying why that wraps one of
// the Err values.
func (c *Cache) Observe(o Observation, amis []amimap.AMI) (bool, error) {
	k, err := c.check(o, amis)
	now := c.now() // outside the lock: Options.Now is the caller's code
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.stats.Refused++
		return false, err
	}
	if old, ok := c.entries.Peek(k); ok && old.observed > c.horizon(now) && old.memory < o.MemoryBytes {
		return false, nil // keep the minimum seen
	}
	if c.entries.Add(k, record{memory: o.MemoryBytes, observed: now.Unix()}) {
		c.stats.Evictions++
	}
	c.stats.Recorded++
	return true, nil
}

// check returns the key o is to be filed under, or why it must not be.
func (c *Cache) check(o Observation, amis []amimap.AMI) (key, error) {
	instanceType := o.NodeLabels[compat.LabelInstanceType]
	if instanceType == "" {
		instanceType = o.NodeLabels["beta.kubernetes.io/instance-type"]
	}
	node := nodeName(o.NodeLabels, instanceType)
	switch {
	case instanceType == "":
		return key{}, fmt.Errorf("capacity: %s: %w", node, ErrNoInstanceType)
	case !validName(instanceType):
		return key{}, fmt.Errorf("capacity: %s has instance type %q: %w", node, instanceType, ErrInvalidName)
	case o.MemoryBytes <= 0:
		return key{}, fmt.Errorf("capacity: %s reports %d bytes of memory: %w", node, o.MemoryBytes, ErrInvalidMemory)
	case o.ImageID == "":
		return key{}, fmt.Errorf("capacity: %s: %w", node, ErrNoImage)
	}
	running := -1
	for i := range amis {
		if amis[i].ID == o.ImageID {
			running = i
			break
		}
	}
	if running < 0 {
		return key{}, fmt.Errorf("capacity: %s runs %s, which none of the %d selected AMIs is; it was launched from an AMI no longer selected: %w", node, o.ImageID, len(amis), ErrUnknownImage)
	}
	if !validName(o.ImageID) {
		return key{}, fmt.Errorf("capacity: %s runs %q: %w", node, o.ImageID, ErrInvalidName)
	}
	reqs := compat.FromNodeLabels(o.NodeLabels)
	chosen := amimap.Choose(reqs, amis)
	if chosen < 0 {
		return key{}, fmt.Errorf("capacity: %s runs %s, but no selected AMI is compatible with its labels (%v): %w", node, o.ImageID, reqs.Compatible(amis[running].Requirements), ErrNoCompatible)
	}
	if got := amis[chosen]; got.ID != o.ImageID {
		return key{}, fmt.Errorf("capacity: %s runs %s, but %s maps to %s (%s), which new nodes will run; what this node reports says nothing about them: %w", node, o.ImageID, instanceType, got.ID, got.Name, ErrNotMapped)
	}
	return key{instanceType, o.ImageID}, nil
}

// nodeName names a node in errors: its hostname if labelled, else its type.
func nodeName(labels map[string]string, instanceType string) string {
	if h := labels[compat.LabelHostname]; h != "" {
		return "node " + h
	}
	if instanceType != "" {
		return "a " + instanceType + " node"
	}
	return "a node"
}

// validName reports whether s may name an instance type or an AMI: 1 to
// 255 printable ASCII characters other than space, quote and backslash.
// Every EC2 name is; Merge holds a snapshot's names to it too.
func validName(s string) bool {
	if len(s) == 0 || len(s) > 255 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c > '~' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
