package capacitystore

import (
	"errors"
	"fmt"
)

// CorruptError reports a ConfigMap of the store that cannot be read: a
// head or part that capacitystore did not write as it stands, most often
// one edited by hand. Nothing of it was merged, and Save never overwrites
// it: the replicas keep what they learned in memory, and keep learning,
// until the store's ConfigMaps are deleted (they are then written anew
// from what the replicas hold) or repaired.
type CorruptError struct {
	// Namespace and Name name the ConfigMap that cannot be read: the head,
	// or one of its parts.
	Namespace, Name string
	// Store is the store's name: its head ConfigMap, and the value of
	// LabelStore on the head and every part.
	Store string
	// Err says what is wrong with it.
	Err error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("capacitystore: ConfigMap %s/%s cannot be read: %v; it is not as capacitystore wrote it (edited by hand?), so nothing was merged from it and no replica overwrites it: "+
		"delete the store's ConfigMaps (kubectl delete configmap -n %s -l %s=%s) and the replicas write them anew from what they know",
		e.Namespace, e.Name, e.Err, e.Namespace, LabelStore, e.Store)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// TooLargeError reports a snapshot that would need more ConfigMaps than
// Options.MaxParts allows. Nothing was written: a snapshot is stored whole
// or not at all, never truncated.
type TooLargeError struct {
	// Namespace and Store name the store's head ConfigMap.
	Namespace, Store string
	// Bytes is the size of the compressed snapshot.
	Bytes int
	// Parts is the number of ConfigMaps of PartBytes each it needs, and
	// MaxParts the number allowed.
	Parts, PartBytes, MaxParts int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("capacitystore: the snapshot for ConfigMap %s/%s is %d bytes compressed and needs %d ConfigMaps of %d bytes, more than Options.MaxParts (%d); nothing was written: raise MaxParts, or lower the capacity.Cache's Options.Size",
		e.Namespace, e.Store, e.Bytes, e.Parts, e.PartBytes, e.MaxParts)
}

// errPartGone is why a head's part could not be read because it no longer
// exists: another replica replaced the head and deleted its parts while
// this one read them, and the head is read again; or, if the head is as it
// was, the part was deleted by hand, and the head is refused.
var errPartGone = errors.New("it lists a part that does not exist")
