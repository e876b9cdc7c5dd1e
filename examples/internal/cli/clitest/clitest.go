// Package clitest checks that an example's entry point follows the
// conventions of package cli.
package clitest

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/examples/internal/cli"
)

// Conventions runs run with -h (exit 0, the usage on w), -bogus (exit 2, a
// usage error carrying the usage) and the stray argument (exit 2).
func Conventions(t *testing.T, run cli.Run, stray string) {
	t.Helper()
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"help", []string{"-h"}, 0},
		{"unknown flag", []string{"-bogus"}, 2},
		{"stray argument", []string{stray}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(context.Background(), &out, tc.args)
			if got := cli.ExitCode(err); got != tc.code {
				t.Fatalf("run(%q) = %v, exit %d; want exit %d", tc.args, err, got, tc.code)
			}
			if tc.code == 0 {
				if !strings.HasPrefix(out.String(), "Usage: go run ./examples/") {
					t.Errorf("run(%q) printed %q, want the usage", tc.args, out.String())
				}
				return
			}
			if out.Len() > 0 {
				t.Errorf("run(%q) printed a report before failing:\n%s", tc.args, out.String())
			}
			var ue *cli.UsageError
			if tc.name == "unknown flag" && (!errors.As(err, &ue) || !strings.HasPrefix(ue.Usage, "Usage: ")) {
				t.Errorf("run(%q) = %v, want a usage error carrying the usage", tc.args, err)
			}
		})
	}
}

// HangingAWS starts a server that accepts each request and never answers,
// and points the AWS SDK's default configuration at fixed, offline
// credentials and region (no profile, no config files, no instance
// metadata), so that a -live run against the returned URL can only end by
// its own -timeout. Both go away when the test ends.
func HangingAWS(t *testing.T) string {
	t.Helper()
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) }) // runs first: unblocks the handlers Close waits for
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "us-west-2",
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": filepath.Join(t.TempDir(), "none"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(t.TempDir(), "none"), "AWS_PROFILE": "",
	} {
		t.Setenv(k, v)
	}
	return hang.URL
}
