package apirecord

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// check type-checks one file of Go source as package example.com/p.
func check(t *testing.T, src string) *types.Package {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", "package p\n"+src, 0)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: importer.Default()}
	pkg, err := conf.Check("example.com/p", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

func TestLines(t *testing.T) {
	pkg := check(t, `
import "time"
const Max = 3
const Kind Mode = 2
type Mode uint8
var Default = Mode(1)
type Cache struct {
	Size int
	TTL  time.Duration
	embed
	*Inner
	hidden bool
}
type Inner struct{}
type embed struct{}
func (c *Cache) Get(key string, more ...int) (int, bool) { return 0, false }
func (Mode) String() string { return "" }
func (c *Cache) unexported() {}
type Client interface { Do(ctx interface{}) error; seal() }
type Number interface { ~int | ~int64 }
type List[T any] []T
func Map[T, U any](in []T, f func(T) U) []U { return nil }
type Alias = Mode
func New() (*Cache, error) { return nil, nil }
func lower() {}
`)
	want := []string{
		"pkg example.com/p, const Kind = 2",
		"pkg example.com/p, const Kind Mode",
		"pkg example.com/p, const Max = 3",
		"pkg example.com/p, const Max int",
		"pkg example.com/p, func Map[T any, U any]([]T, func(T) U) []U",
		"pkg example.com/p, func New() (*Cache, error)",
		"pkg example.com/p, method (*Cache) Get(string, ...int) (int, bool)",
		"pkg example.com/p, method (Mode) String() string",
		"pkg example.com/p, type Alias = Mode",
		"pkg example.com/p, type Cache struct",
		"pkg example.com/p, type Cache struct, Size int",
		"pkg example.com/p, type Cache struct, TTL time.Duration",
		"pkg example.com/p, type Cache struct, embedded *Inner",
		"pkg example.com/p, type Client interface",
		"pkg example.com/p, type Client interface, Do(interface{}) error",
		"pkg example.com/p, type Client interface, unexported methods",
		"pkg example.com/p, type Inner struct",
		"pkg example.com/p, type List[T any] []T",
		"pkg example.com/p, type Mode uint8",
		"pkg example.com/p, type Number interface",
		"pkg example.com/p, type Number interface, type set interface{~int | ~int64}",
		"pkg example.com/p, var Default Mode",
	}
	if diff := cmp.Diff(want, Lines(pkg)); diff != "" {
		t.Errorf("Lines (-want +got):\n%s", diff)
	}
}

// TestCompareSeesBreakingChanges is the acceptance case of issue 44: a
// removed method, a changed signature, a changed struct field type and an
// added interface method each break importers, and the check names the
// symbol and the record file to update.
func TestCompareSeesBreakingChanges(t *testing.T) {
	before := `
type Cache struct { Size int }
func (c *Cache) Get(key string) int { return 0 }
func (c *Cache) Reset() {}
func New(size int) *Cache { return nil }
type Source interface { Read() error }
`
	tests := []struct {
		name   string
		after  string
		symbol string
		line   string
	}{
		{"removed method", strings.Replace(before, "func (c *Cache) Reset() {}", "", 1),
			"p.Cache.Reset", "pkg example.com/p, method (*Cache) Reset()"},
		{"changed signature", strings.Replace(before, "func New(size int) *Cache { return nil }", "func New(size int) (*Cache, error) { return nil, nil }", 1),
			"p.New", "pkg example.com/p, func New(int) *Cache"},
		{"changed field type", strings.Replace(before, "Size int", "Size int64", 1),
			"p.Cache.Size", "pkg example.com/p, type Cache struct, Size int"},
		{"added interface method", strings.Replace(before, "Read() error", "Read() error; Close() error", 1),
			"p.Source.Close", "pkg example.com/p, type Source interface, Close() error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			older, newer := Lines(check(t, before)), Lines(check(t, tc.after))
			changes := Compare(older, newer)
			if !Breaking(changes) {
				t.Fatalf("no breaking change seen in %v", changes)
			}
			var found bool
			for _, c := range changes {
				if c.Line == tc.line {
					found = true
					if !c.Breaking || c.Symbol() != tc.symbol {
						t.Errorf("change %+v: want breaking, symbol %s", c, tc.symbol)
					}
				}
			}
			if !found {
				t.Errorf("no change for line %q in %v", tc.line, changes)
			}
			r := Check(newer, older, ".ci/api/next.txt", nil, "", Changelog{})
			if len(r.Problems) == 0 {
				t.Fatal("Check found no problem")
			}
			msg := strings.Join(r.Problems, "\n")
			for _, want := range []string{tc.symbol, ".ci/api/next.txt", "-w"} {
				if !strings.Contains(msg, want) {
					t.Errorf("Check's message does not name %q:\n%s", want, msg)
				}
			}
		})
	}
}

func TestCompareCompatibleAdditions(t *testing.T) {
	older := Lines(check(t, `type Cache struct { Size int }
type Sealed interface { Read() error; seal() }`))
	newer := Lines(check(t, `type Cache struct { Size int; TTL int }
func (c Cache) Len() int { return 0 }
func New() Cache { return Cache{} }
type Sealed interface { Read() error; Close() error; seal() }`))
	changes := Compare(older, newer)
	if len(changes) != 4 {
		t.Fatalf("want 4 added lines, got %v", changes)
	}
	for _, c := range changes {
		if !c.Added || c.Breaking {
			t.Errorf("%+v: want a compatible addition", c)
		}
	}
}

func TestCheckAgainstChangelog(t *testing.T) {
	released := Lines(check(t, `type Cache struct { Size int }
func (c *Cache) Reset() {}
func Old() {}`))
	recorded := Lines(check(t, `type Cache struct { Size int; TTL int }
type Store struct { Path string; Keep bool }
func (s *Store) Save() error { return nil }`))
	log, err := ParseChangelog(`# Changelog
## [Unreleased]
### Added
- ` + "`p.Store`" + `, a file store.
### Removed
- ` + "`p.Old`" + `: use ` + "`p.Store`" + `.
## [v0.1.0] - 2026-11-28
### Removed
- ` + "`p.Cache.Reset`" + ` (a release note of another version does not count)
`)
	if err != nil {
		t.Fatal(err)
	}
	r := Check(recorded, recorded, ".ci/api/next.txt", released, "v0.1.0", log)
	var got []string
	for _, p := range r.Problems {
		got = append(got, strings.SplitN(p, " ", 2)[0])
	}
	// Store is one entry (a new type covers its fields and methods); Old
	// is named under Removed. Cache.TTL is new and not named; Cache.Reset
	// was removed and is named only in a released section.
	if diff := cmp.Diff([]string{"p.Cache.Reset", "p.Cache.TTL"}, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s\n%s", diff, strings.Join(r.Problems, "\n"))
	}
}

// Entries groups a diff as a changelog names it (apicheck -since prints
// them): a new type with its members is one added entry, a removed
// method and a changed field are breaking entries of their own.
func TestEntries(t *testing.T) {
	older := Lines(check(t, `type Cache struct { Size int }
func (c *Cache) Reset() {}`))
	newer := Lines(check(t, `type Cache struct { Size int64 }
type Store struct { Path string; Keep bool }
func (s *Store) Save() error { return nil }`))
	type entry struct {
		Symbol          string
		Added, Breaking bool
		Lines           int
	}
	var got []entry
	for _, e := range Entries(older, newer) {
		got = append(got, entry{e.Symbol, e.Added, e.Breaking, len(e.Lines)})
	}
	want := []entry{
		{"p.Cache.Size", false, true, 2},
		{"p.Cache.Reset", false, true, 1},
		{"p.Store", true, false, 4},
	}
	sortEntries := cmpopts.SortSlices(func(a, b entry) bool { return a.Symbol < b.Symbol })
	if diff := cmp.Diff(want, got, sortEntries); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}

func TestSymbol(t *testing.T) {
	for line, want := range map[string]string{
		"pkg example.com/a/capacity, method (*Cache) Observe(Observation) (bool, error)": "capacity.Cache.Observe",
		"pkg example.com/a/capacity, type Estimate struct, MaxPods MaxPods":              "capacity.Estimate.MaxPods",
		"pkg example.com/a/capacity, type Estimate struct, embedded *compat.Facts":       "capacity.Estimate.Facts",
		"pkg example.com/a/capacity, type Source interface, Read() error":                "capacity.Source.Read",
		"pkg example.com/a/capacity, type Source interface, unexported methods":          "capacity.Source",
		"pkg example.com/a/capacity, type List[T any] []T":                               "capacity.List",
		"pkg example.com/a/capacity, const Max = 3":                                      "capacity.Max",
		"pkg example.com/a/capacity, func Map[T any](T) T":                               "capacity.Map",
	} {
		if got := Symbol(line); got != want {
			t.Errorf("Symbol(%q) = %q, want %q", line, got, want)
		}
	}
}

func TestParseChangelogNeedsUnreleased(t *testing.T) {
	if _, err := ParseChangelog("# Changelog\n## [v0.1.0]\n"); err == nil {
		t.Error("a changelog without Unreleased parsed")
	}
}
