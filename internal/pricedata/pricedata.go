// Package pricedata is the one home of EC2 price data shared by package
// offerings (which prices offerings from it) and ec2fake (which serves it
// through the Price List Query API): the snapshot file format, its strict
// reader and writer, and the embedded snapshot.
//
// # Format
//
// A snapshot is UTF-8 text, one record per line, fields separated by one
// tab. Lines starting with "#" are comments; empty lines are not allowed.
// The first record is "format<TAB>1". Then, in any order:
//
//	source   REGION CURRENCY AS-OF DESCRIPTION
//	ondemand REGION TYPE OS LICENSE TENANCY FAMILY PRICE
//	spot     REGION ZONE TYPE PRODUCT PRICE TIMESTAMP
//
// source: where the region's on-demand prices come from and when they were
// read (AS-OF, RFC 3339), and the currency of every price of the region
// (three capital letters: USD, CNY). One per region; every ondemand and
// spot record's region has one.
//
// ondemand: a list price per hour, with the Price List's own attribute
// values: operatingSystem (Linux, Windows, RHEL, SUSE, ...), licenseModel
// ("No License required", "Bring your own license"), tenancy (Shared,
// Dedicated, Host) and productFamily ("Compute Instance", "Compute
// Instance (bare metal)"). One per (region, type, OS, licence, tenancy,
// family).
//
// spot: one entry of DescribeSpotPriceHistory: the price per hour from
// TIMESTAMP (RFC 3339) on, in ZONE, for the product description PRODUCT
// ("Linux/UNIX", "Windows", ...). One per (zone, type, product,
// timestamp).
//
// PRICE is a non-negative decimal ("0.096", "0.0960000000"); the text is
// kept as written. [Write] sorts records (sources, then ondemand, then spot,
// each by its fields), so a snapshot written twice is the same bytes.
package pricedata

import (
	"bufio"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Source says where a region's prices come from.
type Source struct {
	Region      string
	Currency    string
	AsOf        time.Time
	Description string
}

// OnDemand is one on-demand list price.
type OnDemand struct {
	Region, InstanceType, OS, License, Tenancy, Family string
	// Price is the decimal text, as the source wrote it; Value its value.
	Price string
	Value float64
}

// Spot is one spot price history entry.
type Spot struct {
	Region, Zone, InstanceType, Product string
	Price                               string
	Value                               float64
	Timestamp                           time.Time
}

// Table is a decoded snapshot. Its slices are in [Write]'s order once
// [Table.Sort] has run; [Read] sorts.
type Table struct {
	Sources  []Source
	OnDemand []OnDemand
	Spot     []Spot
}

//go:embed snapshot.tsv
var embedded []byte

// Embedded decodes the snapshot compiled into the library (see README.md).
// The data is checked by the package's tests; a decoding error here means
// the file was edited by hand.
func Embedded() (*Table, error) {
	return Read(bytes.NewReader(embedded))
}

// ErrFormat is wrapped by every error [Read] returns for bad input.
var ErrFormat = errors.New("not a price snapshot")

// Bounds on what a line may hold, so that bad input fails fast.
const maxLine = 4096

var (
	regionPattern   = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)
	zonePattern     = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+[a-z0-9-]*$`)
	typePattern     = regexp.MustCompile(`^[a-z][a-z0-9-]*\.[a-z0-9-]+$`)
	currencyPattern = regexp.MustCompile(`^[A-Z]{3}$`)
	pricePattern    = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
)

// Read decodes a snapshot strictly: any line that is not a record of the
// format, a duplicate key, a region without a source, or a price that is
// not a non-negative decimal fails with an error naming the line and
// wrapping [ErrFormat]. The result is sorted.
func Read(r io.Reader) (*Table, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1024), maxLine)
	var t Table
	n, sawFormat := 0, false
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		if err := t.readLine(line, sawFormat); err != nil {
			return nil, fmt.Errorf("pricedata: line %d: %w", n, err)
		}
		sawFormat = true
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("pricedata: line %d: %w: %v", n+1, ErrFormat, err)
	}
	if !sawFormat {
		return nil, fmt.Errorf("pricedata: %w: no \"format\\t1\" record", ErrFormat)
	}
	if err := t.check(); err != nil {
		return nil, err
	}
	t.Sort()
	return &t, nil
}

func (t *Table) readLine(line string, sawFormat bool) error {
	f := strings.Split(line, "\t")
	if !sawFormat {
		if len(f) != 2 || f[0] != "format" || f[1] != "1" {
			return fmt.Errorf("%w: the first record is %q; want \"format\\t1\"", ErrFormat, line)
		}
		return nil
	}
	switch f[0] {
	case "source":
		return t.readSource(f)
	case "ondemand":
		return t.readOnDemand(f)
	case "spot":
		return t.readSpot(f)
	}
	return fmt.Errorf("%w: record %q; want source, ondemand or spot", ErrFormat, f[0])
}

func fields(f []string, want int, kind string) error {
	if len(f) != want {
		return fmt.Errorf("%w: a %s record has %d fields; this one has %d", ErrFormat, kind, want, len(f))
	}
	for i, s := range f {
		if s == "" || strings.TrimSpace(s) != s {
			return fmt.Errorf("%w: %s field %d is empty or has surrounding spaces", ErrFormat, kind, i+1)
		}
	}
	return nil
}

func (t *Table) readSource(f []string) error {
	if err := fields(f, 5, "source"); err != nil {
		return err
	}
	if !regionPattern.MatchString(f[1]) || !currencyPattern.MatchString(f[2]) {
		return fmt.Errorf("%w: source %q %q: want a region such as us-east-1 and a currency such as USD", ErrFormat, f[1], f[2])
	}
	asOf, err := time.Parse(time.RFC3339, f[3])
	if err != nil {
		return fmt.Errorf("%w: source %s: as-of %q is not RFC 3339", ErrFormat, f[1], f[3])
	}
	t.Sources = append(t.Sources, Source{Region: f[1], Currency: f[2], AsOf: asOf.UTC(), Description: f[4]})
	return nil
}

func parsePrice(s string) (float64, error) {
	if !pricePattern.MatchString(s) || len(s) > 32 {
		return 0, fmt.Errorf("%w: price %q is not a non-negative decimal such as 0.096", ErrFormat, s)
	}
	return strconv.ParseFloat(s, 64)
}

func (t *Table) readOnDemand(f []string) error {
	if err := fields(f, 8, "ondemand"); err != nil {
		return err
	}
	if !regionPattern.MatchString(f[1]) || !typePattern.MatchString(f[2]) {
		return fmt.Errorf("%w: ondemand %q %q: want a region such as us-east-1 and an instance type such as m5.large", ErrFormat, f[1], f[2])
	}
	v, err := parsePrice(f[7])
	if err != nil {
		return err
	}
	t.OnDemand = append(t.OnDemand, OnDemand{Region: f[1], InstanceType: f[2], OS: f[3], License: f[4], Tenancy: f[5], Family: f[6], Price: f[7], Value: v})
	return nil
}

func (t *Table) readSpot(f []string) error {
	if err := fields(f, 7, "spot"); err != nil {
		return err
	}
	if !regionPattern.MatchString(f[1]) || !zonePattern.MatchString(f[2]) || !strings.HasPrefix(f[2], f[1]) || !typePattern.MatchString(f[3]) {
		return fmt.Errorf("%w: spot %q %q %q: want a region, one of its zones and an instance type", ErrFormat, f[1], f[2], f[3])
	}
	v, err := parsePrice(f[5])
	if err != nil {
		return err
	}
	ts, err := time.Parse(time.RFC3339, f[6])
	if err != nil {
		return fmt.Errorf("%w: spot timestamp %q is not RFC 3339", ErrFormat, f[6])
	}
	t.Spot = append(t.Spot, Spot{Region: f[1], Zone: f[2], InstanceType: f[3], Product: f[4], Price: f[5], Value: v, Timestamp: ts.UTC()})
	return nil
}

// check refuses duplicate keys and regions without a source.
func (t *Table) check() error {
	sources := map[string]bool{}
	for _, s := range t.Sources {
		if sources[s.Region] {
			return fmt.Errorf("pricedata: %w: two source records for %s", ErrFormat, s.Region)
		}
		sources[s.Region] = true
	}
	seen := map[OnDemand]bool{}
	for _, o := range t.OnDemand {
		k := o
		k.Price, k.Value = "", 0
		if seen[k] {
			return fmt.Errorf("pricedata: %w: two ondemand records for %s %s %s/%s/%s/%s", ErrFormat, o.Region, o.InstanceType, o.OS, o.License, o.Tenancy, o.Family)
		}
		seen[k] = true
		if !sources[o.Region] {
			return fmt.Errorf("pricedata: %w: ondemand record for %s, which has no source record", ErrFormat, o.Region)
		}
	}
	seenSpot := map[Spot]bool{}
	for _, s := range t.Spot {
		k := s
		k.Price, k.Value = "", 0
		if seenSpot[k] {
			return fmt.Errorf("pricedata: %w: two spot records for %s %s %s at %s", ErrFormat, s.Zone, s.InstanceType, s.Product, s.Timestamp.Format(time.RFC3339))
		}
		seenSpot[k] = true
		if !sources[s.Region] {
			return fmt.Errorf("pricedata: %w: spot record for %s, which has no source record", ErrFormat, s.Region)
		}
	}
	return nil
}

// Sort puts the records in [Write]'s order.
func (t *Table) Sort() {
	slices.SortFunc(t.Sources, func(a, b Source) int { return strings.Compare(a.Region, b.Region) })
	slices.SortFunc(t.OnDemand, compareOnDemand)
	slices.SortFunc(t.Spot, compareSpot)
}

func compareOnDemand(a, b OnDemand) int {
	for _, c := range [...][2]string{{a.Region, b.Region}, {a.InstanceType, b.InstanceType}, {a.OS, b.OS}, {a.License, b.License}, {a.Tenancy, b.Tenancy}, {a.Family, b.Family}} {
		if d := strings.Compare(c[0], c[1]); d != 0 {
			return d
		}
	}
	return 0
}

func compareSpot(a, b Spot) int {
	for _, c := range [...][2]string{{a.Region, b.Region}, {a.Zone, b.Zone}, {a.InstanceType, b.InstanceType}, {a.Product, b.Product}} {
		if d := strings.Compare(c[0], c[1]); d != 0 {
			return d
		}
	}
	return a.Timestamp.Compare(b.Timestamp)
}

// Write encodes t, sorted, with a comment header. It fails if a value
// would not read back (a tab or line break in a field, an empty field).
func Write(w io.Writer, t *Table, comment string) error {
	c := *t
	c.Sources, c.OnDemand, c.Spot = slices.Clone(t.Sources), slices.Clone(t.OnDemand), slices.Clone(t.Spot)
	c.Sort()
	var b bytes.Buffer
	for _, line := range strings.Split(strings.TrimRight(comment, "\n"), "\n") {
		if line != "" {
			b.WriteString("# " + line + "\n")
		}
	}
	b.WriteString("format\t1\n")
	for _, s := range c.Sources {
		writeRecord(&b, "source", s.Region, s.Currency, s.AsOf.UTC().Format(time.RFC3339), s.Description)
	}
	for _, o := range c.OnDemand {
		writeRecord(&b, "ondemand", o.Region, o.InstanceType, o.OS, o.License, o.Tenancy, o.Family, o.Price)
	}
	for _, s := range c.Spot {
		writeRecord(&b, "spot", s.Region, s.Zone, s.InstanceType, s.Product, s.Price, s.Timestamp.UTC().Format(time.RFC3339))
	}
	// Read it back: the writer promises a file the reader takes.
	if _, err := Read(bytes.NewReader(b.Bytes())); err != nil {
		return fmt.Errorf("pricedata: cannot write this table: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

func writeRecord(b *bytes.Buffer, fields ...string) {
	b.WriteString(strings.Join(fields, "\t"))
	b.WriteByte('\n')
}
