// Command apicheck compares the exported API of ec2select with its record
// in .ci/api and the changelog, as .ci/run does; with -w it rewrites the
// record instead. Run it from the module's root:
//
//	go run ./internal/apirecord/apicheck        # check (exit 1 on a problem)
//	go run ./internal/apirecord/apicheck -w     # rewrite .ci/api/next.txt
//	go run ./internal/apirecord/apicheck -since .ci/api/v0.1.0.txt
//	                                            # what changed since a record,
//	                                            # grouped as a changelog names it
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ec2select/ec2select/internal/apirecord"
)

func main() {
	write := flag.Bool("w", false, "rewrite the record from the code instead of checking it")
	dir := flag.String("C", ".", "the module's root directory")
	since := flag.String("since", "", "print what changed in the code since this record, one changelog entry per name, and exit")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: apicheck [-w | -since FILE] [-C dir]\n\nChecks the exported API against .ci/api/next.txt and, since the newest\nrelease record in .ci/api, against CHANGELOG.md's Unreleased section;\n-w rewrites next.txt, -since prints what changed since a record.")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if *since != "" {
		if err := draft(*dir, *since); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if err := run(*dir, *write); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// current returns the record of the module's code in dir.
func current(dir string) ([]string, error) {
	pkgs, err := apirecord.Load(dir, "./...")
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, p := range pkgs {
		lines = append(lines, apirecord.Lines(p)...)
	}
	return lines, nil
}

func run(dir string, write bool) error {
	generated, err := current(dir)
	if err != nil {
		return err
	}
	apiDir := filepath.Join(dir, ".ci", "api")
	recordFile := filepath.Join(".ci", "api", "next.txt")
	if write {
		return apirecord.WriteFile(filepath.Join(dir, recordFile), generated)
	}
	recorded, err := apirecord.ReadFile(filepath.Join(dir, recordFile))
	if err != nil {
		return fmt.Errorf("apicheck: %v (run go run ./internal/apirecord/apicheck -w to create it)", err)
	}
	var released []string
	releaseName := ""
	if latest, err := apirecord.LatestRelease(apiDir); err != nil {
		return fmt.Errorf("apicheck: %v", err)
	} else if latest != "" {
		if released, err = apirecord.ReadFile(latest); err != nil {
			return fmt.Errorf("apicheck: %v", err)
		}
		releaseName = strings.TrimSuffix(filepath.Base(latest), ".txt") + " (" + filepath.ToSlash(latest) + ")"
	}
	text, err := os.ReadFile(filepath.Join(dir, "CHANGELOG.md"))
	if err != nil {
		return fmt.Errorf("apicheck: %v", err)
	}
	log, err := apirecord.ParseChangelog(string(text))
	if err != nil {
		return err
	}
	report := apirecord.Check(generated, recorded, recordFile, released, releaseName, log)
	if len(report.Problems) == 0 {
		fmt.Printf("apicheck: %d exported names match %s", len(generated), recordFile)
		if releaseName != "" {
			fmt.Printf("; every change since %s is in CHANGELOG.md", releaseName)
		}
		fmt.Println()
		return nil
	}
	for _, p := range report.Problems {
		fmt.Fprintln(os.Stderr, "apicheck: "+p)
	}
	return fmt.Errorf("apicheck: %d problem(s)", len(report.Problems))
}

// draft prints the changes between the record at since and the code as
// the entries a changelog must name: new names under Added, the others
// (a removed name, a changed signature, each with its lines) under
// "Changed or Removed" when they break importers, else under "Changed".
func draft(dir, since string) error {
	older, err := apirecord.ReadFile(since)
	if err != nil {
		return fmt.Errorf("apicheck: %v", err)
	}
	newer, err := current(dir)
	if err != nil {
		return err
	}
	entries := apirecord.Entries(older, newer)
	if len(entries) == 0 {
		fmt.Printf("apicheck: the exported API is the one %s records\n", since)
		return nil
	}
	groups := map[string][]apirecord.Entry{}
	for _, e := range entries {
		switch {
		case e.Added:
			groups["Added"] = append(groups["Added"], e)
		case e.Breaking:
			groups["Changed or Removed"] = append(groups["Changed or Removed"], e)
		default:
			groups["Changed"] = append(groups["Changed"], e)
		}
	}
	for _, kind := range []string{"Added", "Changed", "Changed or Removed"} {
		if len(groups[kind]) == 0 {
			continue
		}
		fmt.Printf("### %s\n", kind)
		for _, e := range groups[kind] {
			fmt.Printf("- %s (%d lines)\n", e.Symbol, len(e.Lines))
			if kind != "Added" {
				for _, l := range e.Lines {
					fmt.Printf("    %s\n", l)
				}
			}
		}
	}
	return nil
}
