package ec2fake

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

//go:embed catalog/zones.tsv
var catalogZones string

//go:embed catalog/instance_type_offerings.tsv
var catalogTypeOfferings string

// CatalogRegions returns the regions ZoneCatalog knows, sorted.
func CatalogRegions() []string {
	var out []string
	for _, row := range tsvRows(catalogZones) {
		out = append(out, row[0])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ZoneCatalog returns the embedded zones of region and the instance types
// each offers, by zone ID, in the form LoadZones takes: every availability
// zone with the instance types EC2 offered there when it was recorded, and
// in us-east-1 two Local Zones (one opted in) and a Wavelength Zone, whose
// offerings are synthetic. Offerings of instance types DefaultCatalog
// lacks are left out. NewWithCatalog loads the catalog of its region
// (Options.Region, default us-east-1). Provenance: catalog/README.md.
func ZoneCatalog(region string) ([]ec2types.AvailabilityZone, []ec2types.InstanceTypeOffering, error) {
	var zones []ec2types.AvailabilityZone
	for _, row := range tsvRows(catalogZones) {
		if row[0] != region {
			continue
		}
		if len(row) != 9 {
			return nil, nil, fmt.Errorf("ec2fake: catalog/zones.tsv: row for %s has %d columns, want 9", row[1], len(row))
		}
		z := ec2types.AvailabilityZone{
			RegionName: aws.String(row[0]), ZoneName: aws.String(row[1]), ZoneId: aws.String(row[2]),
			ZoneType: aws.String(row[3]), OptInStatus: ec2types.AvailabilityZoneOptInStatus(row[4]),
			State: ec2types.AvailabilityZoneState(row[5]), NetworkBorderGroup: aws.String(row[7]), GroupName: aws.String(row[8]),
		}
		if row[6] != "" {
			z.ParentZoneId = aws.String(row[6])
		}
		zones = append(zones, z)
	}
	if zones == nil {
		return nil, nil, fmt.Errorf("ec2fake: the zone catalog has no region %q; it has %v", region, CatalogRegions())
	}
	known := catalogTypeNames()
	var offerings []ec2types.InstanceTypeOffering
	for _, row := range tsvRows(catalogTypeOfferings) {
		if row[0] != region {
			continue
		}
		for _, t := range strings.Fields(row[2]) {
			if _, ok := slices.BinarySearch(known, t); ok {
				offerings = append(offerings, ec2types.InstanceTypeOffering{
					InstanceType: ec2types.InstanceType(t), Location: aws.String(row[1]), LocationType: ec2types.LocationTypeAvailabilityZoneId,
				})
			}
		}
	}
	return zones, offerings, nil
}

// tsvRows splits an embedded table into rows of fields, skipping comments.
func tsvRows(table string) [][]string {
	var rows [][]string
	for line := range strings.SplitSeq(table, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rows = append(rows, strings.Split(line, "\t"))
	}
	return rows
}

// catalogTypeNames lists the names of the embedded instance types, sorted,
// without decoding the rest of the table.
func catalogTypeNames() []string {
	var names []string
	for line := range strings.SplitSeq(catalogInstanceTypes, "\n") {
		name, _, _ := strings.Cut(line, "\t")
		if instanceTypePattern.MatchString(name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// loadZoneCatalog loads the zone catalog of b's region, if it has one.
func (b *Backend) loadZoneCatalog() {
	zones, offerings, err := ZoneCatalog(b.region())
	if err != nil {
		return // a region the catalog lacks: no zones, as for New
	}
	if err := b.LoadZones(zones, offerings); err != nil {
		panic(fmt.Sprintf("ec2fake: embedded zone catalog does not load: %v", err)) // guarded by TestZoneCatalogLoads
	}
}
