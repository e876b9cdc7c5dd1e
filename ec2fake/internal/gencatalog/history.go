package main

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// The recorded release histories FullCatalog is generated from, in the
// upstream directory; each file's header states its source and format.
const (
	eksHistoryFile          = "eks-ami-releases.tsv"
	bottlerocketHistoryFile = "bottlerocket-releases.tsv"
	windowsHistoryFile      = "windows-ami-releases.tsv"
)

// History bounds: the Kubernetes versions the full catalog covers.
const (
	historyFirstMinor = 29
	historyLastMinor  = 36
)

// eksAMI is one line of eks-ami-releases.tsv: an AL2 or AL2023 AMI name
// and the release version the changelog gives it ("1.32.5-20250715").
type eksAMI struct {
	name, family, arch, flavour, k8s, releaseVersion string
	date                                             time.Time
}

var (
	// amazon-eks-node-al2023-x86_64-nvidia-560-1.31-v20241016 is a real name.
	historyAL2023Name = regexp.MustCompile(`^amazon-eks-node-al2023-(x86_64|arm64)-(standard|nvidia|neuron|nvidia-560)-(1\.[0-9]{1,2})-v([0-9]{8})$`)
	historyAL2Name    = regexp.MustCompile(`^amazon-eks-(arm64-|gpu-)?node-(1\.[0-9]{1,2})-v([0-9]{8})$`)
	releaseVersion    = regexp.MustCompile(`^(1\.[0-9]{1,2})\.[0-9]{1,3}-([0-9]{8})$`)
)

// parseEKSHistory reads "name TAB release-version" lines. The name must be
// an AL2 or AL2023 EKS AMI name for Kubernetes 1.29-1.36, and the release
// version must name the same Kubernetes minor version and day.
func parseEKSHistory(text string) ([]eksAMI, error) {
	var out []eksAMI
	seen := map[string]bool{}
	err := eachLine(text, 2, func(n int, f []string) error {
		a, err := eksAMIFromName(f[0])
		if err != nil {
			return err
		}
		m := releaseVersion.FindStringSubmatch(f[1])
		if m == nil || m[1] != a.k8s || m[2] != a.date.Format("20060102") {
			return fmt.Errorf("release version %q does not match %s (want %s.PATCH-%s)", f[1], a.name, a.k8s, a.date.Format("20060102"))
		}
		if seen[a.name] {
			return fmt.Errorf("%s is listed twice", a.name)
		}
		seen[a.name] = true
		a.releaseVersion = f[1]
		out = append(out, a)
		return nil
	})
	return out, err
}

func eksAMIFromName(name string) (eksAMI, error) {
	var a eksAMI
	var day string
	if m := historyAL2023Name.FindStringSubmatch(name); m != nil {
		a = eksAMI{name: name, family: "al2023", arch: m[1], flavour: m[2], k8s: m[3]}
		day = m[4]
		if a.arch == "arm64" && (a.flavour == "neuron" || a.flavour == "nvidia-560") {
			// amazon-eks-ami builds Neuron and NVIDIA 560 images for x86_64 only.
			return eksAMI{}, fmt.Errorf("%q: AL2023 has no arm64 %s image", name, a.flavour)
		}
	} else if m := historyAL2Name.FindStringSubmatch(name); m != nil {
		a = eksAMI{name: name, family: "al2", arch: "x86_64", flavour: "standard", k8s: m[2]}
		switch m[1] {
		case "arm64-":
			a.arch = "arm64"
		case "gpu-":
			a.flavour = "gpu"
		}
		day = m[3]
	} else {
		return eksAMI{}, fmt.Errorf("%q is not an AL2 or AL2023 EKS AMI name", name)
	}
	date, err := time.Parse("20060102", day)
	if err != nil {
		return eksAMI{}, fmt.Errorf("%s: release v%s is not a date", name, day)
	}
	a.date = date
	if err := checkHistoryMinor(a.k8s); err != nil {
		return eksAMI{}, fmt.Errorf("%s: %w", name, err)
	}
	return a, nil
}

func checkHistoryMinor(k8s string) error {
	m, err := minor(k8s)
	if err != nil || m < historyFirstMinor || m > historyLastMinor {
		//lint:ignore ST1005 Kubernetes is a proper noun
		return fmt.Errorf("Kubernetes %s is outside 1.%d-1.%d", k8s, historyFirstMinor, historyLastMinor)
	}
	return nil
}

// bottlerocketRelease is one line of bottlerocket-releases.tsv.
type bottlerocketRelease struct {
	version, commit string // commit "" when not recorded
	date            time.Time
	k8s             []string
	fipsFrom        int // first minor with -fips variants; 0 for none
}

var (
	semverPattern = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`)
	commitPattern = regexp.MustCompile(`^[0-9a-f]{8}$`)
)

// parseBottlerocketHistory reads the release lines described in the file's
// header: version commit date date-source k8s-first k8s-last fips-first source.
func parseBottlerocketHistory(text string) ([]bottlerocketRelease, error) {
	var out []bottlerocketRelease
	seen := map[string]bool{}
	err := eachLine(text, 8, func(n int, f []string) error {
		r := bottlerocketRelease{version: f[0]}
		if !semverPattern.MatchString(f[0]) || seen[f[0]] {
			return fmt.Errorf("version %q is not vX.Y.Z or is listed twice", f[0])
		}
		seen[f[0]] = true
		switch {
		case f[1] == "-":
		case commitPattern.MatchString(f[1]):
			r.commit = f[1]
		default:
			return fmt.Errorf("commit %q is not 8 lowercase hex digits or \"-\"", f[1])
		}
		date, err := time.Parse(time.DateOnly, f[2])
		if err != nil {
			return fmt.Errorf("date %q is not YYYY-MM-DD", f[2])
		}
		r.date = date
		if f[3] != "changelog" && f[3] != "pr" && f[3] != "estimated" {
			return fmt.Errorf("date source %q is not changelog, pr or estimated", f[3])
		}
		if r.k8s, err = minorRange(f[4], f[5]); err != nil {
			return err
		}
		for _, k := range []string{f[4], f[5]} {
			if err := checkHistoryMinor(k); err != nil {
				return err
			}
		}
		if f[6] != "-" {
			lo, err := minor(f[6])
			first, _ := minor(f[4])
			last, _ := minor(f[5])
			if err != nil || lo < first || lo > last {
				return fmt.Errorf("fips-first %q is not \"-\" or a version in %s..%s", f[6], f[4], f[5])
			}
			r.fipsFrom = lo
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// windowsAMI is one line of windows-ami-releases.tsv.
type windowsAMI struct {
	name, year, edition, k8s string
	date                     time.Time
}

var historyWindowsName = regexp.MustCompile(`^Windows_Server-(2019|2022|2025)-English-(Core|Full)-EKS_Optimized-(1\.[0-9]{1,2})-([0-9]{4})[.-]([0-9]{2})[.-]([0-9]{2})$`)

// parseWindowsHistory reads "name TAB source" lines of EKS-optimized
// Windows AMI names.
func parseWindowsHistory(text string) ([]windowsAMI, error) {
	var out []windowsAMI
	seen := map[string]bool{}
	err := eachLine(text, 2, func(n int, f []string) error {
		m := historyWindowsName.FindStringSubmatch(f[0])
		if m == nil || seen[f[0]] {
			return fmt.Errorf("%q is not an EKS-optimized Windows AMI name or is listed twice", f[0])
		}
		seen[f[0]] = true
		date, err := time.Parse(time.DateOnly, m[4]+"-"+m[5]+"-"+m[6])
		if err != nil {
			return fmt.Errorf("%s: the release is not a date", f[0])
		}
		if err := checkHistoryMinor(m[3]); err != nil {
			return fmt.Errorf("%s: %w", f[0], err)
		}
		if km, _ := minor(m[3]); m[1] == "2025" && km < 35 {
			return fmt.Errorf("%s: Server 2025 images start with Kubernetes 1.35", f[0])
		}
		if f[1] != "awsdocs" && f[1] != "cn-docs" {
			return fmt.Errorf("source %q is not awsdocs or cn-docs", f[1])
		}
		out = append(out, windowsAMI{name: f[0], year: m[1], edition: m[2], k8s: m[3], date: date})
		return nil
	})
	return out, err
}

// eachLine calls fn with the tab-separated fields of every line that is
// not empty or a "#" comment, checking the field count.
func eachLine(text string, fields int, fn func(n int, f []string) error) error {
	for n, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != fields {
			return fmt.Errorf("line %d: %d tab-separated fields; want %d", n+1, len(f), fields)
		}
		if err := fn(n+1, f); err != nil {
			return fmt.Errorf("line %d: %w", n+1, err)
		}
	}
	return nil
}

// history holds the three parsed release histories.
type history struct {
	eks          []eksAMI
	bottlerocket []bottlerocketRelease
	windows      []windowsAMI
}

func readHistory(dir string) (history, error) {
	var h history
	read := func(name string, parse func(string) error) error {
		text, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if err := parse(string(text)); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
		}
		return nil
	}
	err := read(eksHistoryFile, func(s string) (err error) { h.eks, err = parseEKSHistory(s); return })
	if err == nil {
		err = read(bottlerocketHistoryFile, func(s string) (err error) { h.bottlerocket, err = parseBottlerocketHistory(s); return })
	}
	if err == nil {
		err = read(windowsHistoryFile, func(s string) (err error) { h.windows, err = parseWindowsHistory(s); return })
	}
	return h, err
}

// releaseVersions maps each recorded AL2/AL2023 AMI name to its release
// version.
func (h history) releaseVersions() map[string]string {
	out := make(map[string]string, len(h.eks))
	for _, a := range h.eks {
		out[a.name] = a.releaseVersion
	}
	return out
}

// images expands the histories into public images. IDs and creation times
// are synthetic in the same way as the default catalog's (see publicImage
// and the catalog README); where a Bottlerocket build suffix is not
// recorded it is the first 8 hex digits of an FNV-1a hash of the version.
func (h history) images() []ec2types.Image {
	out := make([]ec2types.Image, 0, len(h.eks)+len(h.windows)+len(h.bottlerocket)*40)
	for _, a := range h.eks {
		out = append(out, publicImage(a.family, eksVariant(a), historyCreated(a.date, a.k8s, eksOffset(a))))
	}
	for _, r := range h.bottlerocket {
		rel := r.version + "-" + r.buildSuffix()
		for _, k8s := range r.k8s {
			m, _ := minor(k8s)
			flavours := []string{"", "-nvidia"}
			if r.fipsFrom != 0 && m >= r.fipsFrom {
				flavours = append(flavours, "-fips")
			}
			for _, v := range bottlerocketVariants(k8s, rel, flavours) {
				out = append(out, publicImage("bottlerocket", v, historyCreated(r.date, k8s, v.offset)))
			}
		}
	}
	for _, w := range h.windows {
		v := variant{w.name, "x86_64", "Microsoft Windows Server " + w.year + " " + w.edition + " optimized for EKS and Kubernetes " + w.k8s, windowsOffset(w.year, w.edition)}
		out = append(out, publicImage("windows", v, historyCreated(w.date, w.k8s, v.offset)))
	}
	return out
}

func (r bottlerocketRelease) buildSuffix() string {
	if r.commit != "" {
		return r.commit
	}
	h := fnv.New32a()
	h.Write([]byte("bottlerocket " + r.version))
	return fmt.Sprintf("%08x", h.Sum32())
}

// historyCreated is an image's synthetic creation time: its release day
// from 16:00 UTC, ten minutes apart per Kubernetes version, plus the
// variant's offset and a few seconds.
func historyCreated(day time.Time, k8s string, offset time.Duration) time.Time {
	m, _ := minor(k8s)
	i := m - historyFirstMinor
	return day.Add(16*time.Hour + time.Duration(i)*10*time.Minute + offset + time.Duration(i*7%60)*time.Second)
}

func eksVariant(a eksAMI) variant {
	full, _, _ := strings.Cut(a.releaseVersion, "-") // "1.32.5"
	if a.family == "al2" {
		return variant{a.name, a.arch, al2Description(full), eksOffset(a)}
	}
	return variant{a.name, a.arch, al2023Description(full), eksOffset(a)}
}

// The descriptions amazon-eks-ami's Packer templates give: ami_description,
// then "(k8s: VERSION, containerd: VERSION)" (templates/al2*/
// variables-default.json at 81fec2e8); the containerd version is not
// recorded, so the catalog leaves that part out.
func al2Description(k8s string) string {
	return "EKS Kubernetes Worker AMI with AmazonLinux2 image, (k8s: " + k8s + ")"
}

func al2023Description(k8s string) string {
	return "EKS-optimized Kubernetes node based on Amazon Linux 2023, (k8s: " + k8s + ")"
}

func eksOffset(a eksAMI) time.Duration {
	order := map[string]int{
		"x86_64/standard": 0, "x86_64/nvidia": 1, "x86_64/neuron": 2, "x86_64/nvidia-560": 3, "arm64/standard": 4, "arm64/nvidia": 5,
		"x86_64/gpu": 2,
	}
	return time.Duration(order[a.arch+"/"+a.flavour]) * time.Minute
}

func windowsOffset(year, edition string) time.Duration {
	i := map[string]int{"2019": 0, "2022": 1, "2025": 2}[year]
	j := 0
	if edition == "Full" {
		j = 1
	}
	return time.Duration(2*i+j) * time.Minute
}
