package capacitystore

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/capacity"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The keys and labels of the store's ConfigMaps; see the package
// documentation for the layout.
const (
	// LabelStore is on the head and on every part, with the store's name
	// as its value: kubectl get configmap -l capacitystore.ec2select.io/store=NAME
	// lists them all.
	LabelStore = "capacitystore.ec2select.io/store"
	// LabelRole is "head" or "part".
	LabelRole = "capacitystore.ec2select.io/role"
	// AnnotationWriter names the replica that wrote the head last
	// (Options.Writer), for people reading it.
	AnnotationWriter = "capacitystore.ec2select.io/writer"

	// KeySnapshot holds the gzip-compressed snapshot in a head's
	// binaryData when it fits in one ConfigMap.
	KeySnapshot = "snapshot.json.gz"
	// KeyParts holds, in a head's data, the JSON list of the parts a
	// larger compressed snapshot is split over, with its SHA-256.
	KeyParts = "parts.json"
	// KeyPart holds one part's bytes in its binaryData.
	KeyPart = "snapshot.json.gz.part"
)

// manifest is a split head's KeyParts: the compressed snapshot is the
// concatenation of the parts' KeyPart values, Bytes long, with the SHA-256
// Sum (lowercase hex).
type manifest struct {
	Sum   string   `json:"sha256"`
	Bytes int      `json:"bytes"`
	Parts []string `json:"parts"`
}

// compress gzips a snapshot. Compression pays even when the snapshot fits
// uncompressed: every replica's watch receives every write.
func compress(snapshot []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(snapshot) // a bytes.Buffer does not fail
	zw.Close()
	return buf.Bytes()
}

// decompress reads one gzip stream, whole, holding nothing after it and
// decompressing to at most capacity.MaxSnapshotSize bytes.
func decompress(blob []byte) ([]byte, error) {
	in := bytes.NewReader(blob)
	zr, err := gzip.NewReader(in)
	if err != nil {
		return nil, fmt.Errorf("its snapshot is not gzip data: %v", err)
	}
	zr.Multistream(false)
	snapshot, err := io.ReadAll(io.LimitReader(zr, capacity.MaxSnapshotSize+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("its gzip data is damaged: %v", err)
	case len(snapshot) > capacity.MaxSnapshotSize:
		return nil, fmt.Errorf("its snapshot decompresses to more than capacity.MaxSnapshotSize (%d bytes)", capacity.MaxSnapshotSize)
	case in.Len() > 0:
		return nil, fmt.Errorf("%d bytes follow its gzip stream", in.Len())
	}
	return snapshot, nil
}

// layout returns the head holding blob, a compressed snapshot, and the
// parts it is split over when it does not fit in one ConfigMap, or a
// TooLargeError. Parts are named afresh on every write
// (NAME-GENERATION-INDEX), so that no two writes ever share one: a part is
// deleted only by the writer that replaced the head referencing it.
func (s *Store) layout(blob []byte) (*corev1.ConfigMap, []*corev1.ConfigMap, error) {
	head := s.object(s.o.Name, "head")
	head.Annotations = map[string]string{AnnotationWriter: s.o.Writer}
	if len(blob) <= s.o.PartBytes {
		head.BinaryData = map[string][]byte{KeySnapshot: blob}
		return head, nil, nil
	}
	n := (len(blob) + s.o.PartBytes - 1) / s.o.PartBytes
	if n > s.o.MaxParts {
		return nil, nil, &TooLargeError{Namespace: s.o.Namespace, Store: s.o.Name, Bytes: len(blob), Parts: n, PartBytes: s.o.PartBytes, MaxParts: s.o.MaxParts}
	}
	generation := rand.Text()[:8] // base32: a valid name fragment once lowercased
	sum := sha256.Sum256(blob)
	m := manifest{Sum: hex.EncodeToString(sum[:]), Bytes: len(blob)}
	parts := make([]*corev1.ConfigMap, n)
	for i := range parts {
		name := fmt.Sprintf("%s-%s-%d", s.o.Name, strings.ToLower(generation), i)
		parts[i] = s.object(name, "part")
		parts[i].Immutable = new(bool)
		*parts[i].Immutable = true
		parts[i].BinaryData = map[string][]byte{KeyPart: blob[i*s.o.PartBytes : min((i+1)*s.o.PartBytes, len(blob))]}
		m.Parts = append(m.Parts, name)
	}
	text, _ := json.Marshal(m) // strings and an integer
	head.Data = map[string]string{KeyParts: string(text)}
	return head, parts, nil
}

func (s *Store) object(name, role string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: s.o.Namespace,
		Labels: map[string]string{LabelStore: s.o.Name, LabelRole: role},
	}}
}

// read returns the compressed snapshot head holds and the names of the
// parts it spans. Its errors are a *CorruptError, errPartGone, or the API
// server's.
func (s *Store) read(ctx context.Context, head *corev1.ConfigMap) ([]byte, []string, error) {
	keys := slices.Sorted(maps.Keys(head.BinaryData))
	switch {
	case len(head.Data) == 0 && slices.Equal(keys, []string{KeySnapshot}):
		return head.BinaryData[KeySnapshot], nil, nil
	case len(head.BinaryData) == 0 && len(head.Data) == 1 && head.Data[KeyParts] != "":
		return s.readParts(ctx, head)
	}
	return nil, nil, s.corrupt(head.Name, fmt.Errorf("it holds %s, where capacitystore writes binaryData %q alone or data %q alone",
		describeKeys(head), KeySnapshot, KeyParts))
}

func describeKeys(cm *corev1.ConfigMap) string {
	var keys []string
	for _, k := range slices.Sorted(maps.Keys(cm.Data)) {
		keys = append(keys, fmt.Sprintf("data %q", k))
	}
	for _, k := range slices.Sorted(maps.Keys(cm.BinaryData)) {
		keys = append(keys, fmt.Sprintf("binaryData %q", k))
	}
	if len(keys) == 0 {
		return "nothing"
	}
	return strings.Join(keys, ", ")
}

// readParts reads the parts a split head lists, in order, and checks
// their concatenation against the head's length and SHA-256.
func (s *Store) readParts(ctx context.Context, head *corev1.ConfigMap) ([]byte, []string, error) {
	m, err := parseManifest(head.Data[KeyParts])
	if err != nil {
		return nil, nil, s.corrupt(head.Name, err)
	}
	blob := make([]byte, 0, m.Bytes)
	for _, name := range m.Parts {
		part, err := s.configMaps().Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return nil, nil, fmt.Errorf("%w: %s/%s does not exist", errPartGone, s.o.Namespace, name)
		case err != nil:
			return nil, nil, fmt.Errorf("capacitystore: reading ConfigMap %s/%s, a part of %s: %w", s.o.Namespace, name, s.o.Name, err)
		case len(part.Data) > 0 || len(part.BinaryData) != 1 || part.BinaryData[KeyPart] == nil:
			return nil, nil, s.corrupt(name, fmt.Errorf("it is a part of %s and holds %s, where capacitystore writes binaryData %q alone", s.o.Name, describeKeys(part), KeyPart))
		}
		blob = append(blob, part.BinaryData[KeyPart]...)
	}
	sum := sha256.Sum256(blob)
	if len(blob) != m.Bytes || hex.EncodeToString(sum[:]) != m.Sum {
		return nil, nil, s.corrupt(head.Name, fmt.Errorf("its %d parts hold %d bytes with SHA-256 %x, where its %s says %d bytes with SHA-256 %s", len(m.Parts), len(blob), sum, KeyParts, m.Bytes, m.Sum))
	}
	return blob, m.Parts, nil
}

// parseManifest reads a head's KeyParts strictly: the members layout
// writes, nothing else, and part names that are ConfigMap names.
func parseManifest(text string) (manifest, error) {
	var m manifest
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("its %s is not capacitystore's list of parts: %v", KeyParts, err)
	}
	if dec.More() {
		return m, fmt.Errorf("its %s has data after the list of parts", KeyParts)
	}
	sum, err := hex.DecodeString(m.Sum)
	switch {
	case err != nil || len(sum) != sha256.Size || m.Sum != strings.ToLower(m.Sum):
		return m, fmt.Errorf("its %s has sha256 %q, not 64 lowercase hex digits", KeyParts, m.Sum)
	case len(m.Parts) == 0 || m.Bytes < 1:
		return m, fmt.Errorf("its %s lists %d parts of %d bytes", KeyParts, len(m.Parts), m.Bytes)
	case slices.ContainsFunc(m.Parts, func(name string) bool { return !validName(name) }):
		return m, fmt.Errorf("its %s names a part that is not a ConfigMap name", KeyParts)
	}
	return m, nil
}

func (s *Store) corrupt(name string, err error) *CorruptError {
	return &CorruptError{Namespace: s.o.Namespace, Name: name, Store: s.o.Name, Err: err}
}

// deleteParts deletes the parts named, ignoring those already gone. A
// part it fails to delete is left for sweep.
func (s *Store) deleteParts(ctx context.Context, names []string) {
	for _, name := range names {
		err := s.configMaps().Delete(ctx, name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			s.log.Warn("capacitystore: cannot delete a replaced part; the next start sweeps it", "configmap", s.o.Namespace+"/"+name, "error", err)
		}
	}
}

// isConflict reports whether a write failed because another writer wrote
// first: the head changed (409 Conflict), appeared (AlreadyExists), or was
// deleted (NotFound on an update).
func isConflict(err error) bool {
	return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err)
}
