package capacitystore

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/ec2select/ec2select/capacity"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FuzzHead: whatever a head holds, merging it never panics; it is merged
// whole, or refused with a CorruptError and nothing merged.
func FuzzHead(f *testing.F) {
	c, _ := capacity.New(capacity.Options{})
	observe(c, node{"m5.large", "amd64", "ami-0aa06077113319855", 7_926_000_000})
	snapshot, _ := c.Snapshot()
	f.Add(compress(snapshot), "", "")
	f.Add(snapshot, "", "")
	f.Add([]byte(nil), KeyParts, `{"sha256":"`+string(make([]byte, 64))+`","bytes":3,"parts":["capacity-abc-0"]}`)
	f.Add(compress([]byte(`{"version":1}`)), "note", "x")
	api := apiFake().CoreV1() // holds no parts: a split head's are missing
	f.Fuzz(func(t *testing.T, blob []byte, key, text string) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "capacity", Namespace: DefaultNamespace, ResourceVersion: "7"}}
		if blob != nil {
			cm.BinaryData = map[string][]byte{KeySnapshot: blob}
		}
		if key != "" {
			cm.Data = map[string]string{key: text}
		}
		c, _ := capacity.New(capacity.Options{})
		s, err := New(api, c, Options{Name: "capacity", Log: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		err = s.merge(context.Background(), cm)
		var corrupt *CorruptError
		switch {
		case err == nil && !s.seen.known:
			t.Fatal("merged, but not recorded as seen")
		case err != nil && !errors.As(err, &corrupt) && !errors.Is(err, errPartGone):
			t.Fatalf("refused with %v, not a CorruptError", err)
		case err != nil && (c.Stats().Len != 0 || s.seen.known):
			t.Fatalf("refused with %v, but merged %d entries or recorded the head as seen", err, c.Stats().Len)
		}
	})
}

// FuzzManifest: parseManifest never panics, and what it accepts is what
// layout would write for it.
func FuzzManifest(f *testing.F) {
	f.Add(`{"sha256":"00f82b2445e6b1c37b8e577789544a93908963b6d5676545a7a2e1c4793097fa","bytes":215,"parts":["capacity-w6rdczf4-0","capacity-w6rdczf4-1"]}`)
	f.Add(`{"sha256":"","bytes":0,"parts":[]}`)
	f.Add(`{"sha256":"00","bytes":1,"parts":["A"],"extra":1}`)
	f.Fuzz(func(t *testing.T, text string) {
		m, err := parseManifest(text)
		if err != nil {
			return
		}
		if len(m.Sum) != 64 || m.Bytes < 1 || len(m.Parts) == 0 {
			t.Fatalf("accepted %q as %+v", text, m)
		}
		for _, name := range m.Parts {
			if !validName(name) {
				t.Fatalf("accepted the part name %q", name)
			}
		}
	})
}
