package cli

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"none", nil, 0},
		{"failure", errors.New("describing images: boom"), 1},
		{"usage", Usagef("-x: bad"), 2},
		{"wrapped usage", fmt.Errorf("parsing: %w", Usagef("-x: bad")), 2},
		{"input", Inputf("a.yaml:3: bad"), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ExitCode(tc.err); got != tc.want {
				t.Errorf("ExitCode(%v) = %d, want %d", tc.err, got, tc.want)
			}
		})
	}
}

func TestParse(t *testing.T) {
	c := Command{Name: "demo", Usage: "Usage: go run ./examples/demo\n"}
	for _, tc := range []struct {
		name     string
		args     []string
		takes    string
		help     bool
		code     int
		mentions string
	}{
		{"help", []string{"-h"}, "", true, 0, ""},
		{"nothing", nil, "", false, 0, ""},
		{"unknown flag", []string{"-bogus"}, "", false, 2, "-bogus"},
		{"stray argument", []string{"extra"}, "", false, 2, `unexpected argument "extra"`},
		{"arguments taken", []string{"a.yaml"}, "FILE...", false, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.Args = tc.takes
			var out bytes.Buffer
			help, err := c.Parse(c.FlagSet(), &out, tc.args)
			if help != tc.help || ExitCode(err) != tc.code || !strings.Contains(fmt.Sprint(err), tc.mentions) {
				t.Errorf("Parse(%q) = %v, %v; want help %v, exit %d, mentioning %q", tc.args, help, err, tc.help, tc.code, tc.mentions)
			}
			if tc.help != strings.HasPrefix(out.String(), c.Usage) {
				t.Errorf("Parse(%q) wrote %q", tc.args, out.String())
			}
		})
	}
}

func TestLiveCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		live Live
		set  []string
		code int
	}{
		{"default", Live{Timeout: DefaultTimeout}, nil, 0},
		{"live", Live{Enabled: true, Timeout: time.Second}, []string{"live", "timeout"}, 0},
		{"timeout without live", Live{Timeout: time.Second}, []string{"timeout"}, 2},
		{"endpoint without live", Live{Timeout: time.Second, Endpoint: "http://x"}, []string{"endpoint"}, 2},
		{"zero timeout", Live{Enabled: true}, []string{"live", "timeout"}, 2},
		{"region without live", Live{Timeout: time.Second, Region: "us-east-1"}, []string{"region"}, 2},
		{"region offline", Live{Timeout: time.Second, Region: "us-east-1", RegionOffline: "the cluster's region"}, []string{"region"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := map[string]bool{}
			for _, s := range tc.set {
				set[s] = true
			}
			if got := ExitCode(tc.live.Check(set)); got != tc.code {
				t.Errorf("Check = exit %d, want %d", got, tc.code)
			}
		})
	}
}
