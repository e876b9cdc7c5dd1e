package mimedoc

import (
	"bytes"
	"testing"
)

func TestPickBoundaryAvoidsCollision(t *testing.T) {
	t.Parallel()
	parts := [][]byte{[]byte("Content-Type: text/plain\n\nhello\n")}
	first, err := pickBoundary(parts)
	if err != nil {
		t.Fatal(err)
	}
	parts = append(parts, []byte("Content-Type: text/plain\n\n--"+first+"\n"))
	second, err := pickBoundary(parts)
	if err != nil {
		t.Fatal(err)
	}
	// The first candidate for the new parts may differ anyway; what matters
	// is that the chosen one occurs in no part.
	for _, p := range parts {
		if bytes.Contains(p, []byte(second)) {
			t.Fatalf("boundary %q occurs in part %q", second, p)
		}
	}
	// Force the first candidate into a part: the next one must be chosen.
	candidate, _ := pickBoundary([][]byte{[]byte("x")})
	forced := [][]byte{[]byte("x")}
	_ = candidate
	for i := 0; i < 3; i++ {
		b, err := pickBoundary(forced)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range forced {
			if bytes.Contains(p, []byte(b)) {
				t.Fatalf("boundary %q occurs in a part", b)
			}
		}
		forced[0] = append(forced[0], []byte(b)...)
	}
}
