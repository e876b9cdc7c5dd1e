package enumtext

import (
	"strconv"
	"testing"
)

type color uint8

func (c color) String() string {
	switch c {
	case 1:
		return "red"
	case 2:
		return "blue"
	}
	return "color(" + strconv.Itoa(int(c)) + ")"
}

func TestRoundTrip(t *testing.T) {
	for c := color(1); c <= 2; c++ {
		text, err := Marshal(c, 1, 2, "color")
		if err != nil {
			t.Fatal(err)
		}
		var back color
		if err := Unmarshal(&back, text, 1, 2, "color"); err != nil || back != c {
			t.Errorf("%q decodes to %v, %v", text, back, err)
		}
	}
	for _, c := range []color{0, 3} {
		if _, err := Marshal(c, 1, 2, "color"); err == nil || err.Error() != "color "+strconv.Itoa(int(c))+" has no name; use one of the package's constants" {
			t.Errorf("Marshal(%d) = %v", c, err)
		}
	}
	var c color
	if err := Unmarshal(&c, []byte("green"), 1, 2, "color"); err == nil || err.Error() != `"green" is not a color; use one of ["red" "blue"]` {
		t.Errorf("Unmarshal(green) = %v", err)
	}
}
