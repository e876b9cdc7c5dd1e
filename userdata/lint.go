package userdata

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"

	"github.com/ec2select/ec2select/compat"

	"github.com/ec2select/ec2select/userdata/internal/bottlerocket"
	"github.com/ec2select/ec2select/userdata/internal/kubelet"
	"github.com/ec2select/ec2select/userdata/internal/mimedoc"
	"github.com/ec2select/ec2select/userdata/internal/nodeadm"
)

// maxDecompressed bounds gzip'd userData, so that a small input cannot
// expand without limit.
const maxDecompressed = 1 << 20

// Lint reads userData the way the family's boot software does and reports
// whether the node joins, the taints the kubelet registers, and every
// problem on the way. userData may be raw or base64 (as EC2 returns it),
// and may be gzip'd. required are the taints the controller requires,
// matched by key and effect, exactly as given: empty means none (pass
// [Config.Required] to check what [Render] requires, or
// []Taint{UnregisteredTaint()} for Karpenter v1's). For [compat.Custom]
// the family is guessed from the userData's shape.
//
// It follows (sources are cited at the code and in the tests):
//
//   - cloud-init: MIME read with Python's email parser, as cloud-init
//     reads it (a header block may run straight into the body; where
//     Python 2.7 and 3 read a document differently, unresolved; a script
//     part whose text cloud-init's Python 3 cannot write, unresolved),
//     part types (from Content-Type, or the first line of a
//     text/plain part), file names (Content-Disposition filename, else
//     part-NNN) and the order they run in (boothooks, bootcmd, then
//     per-once, per-boot, per-instance and user scripts, each by file
//     name), CRLF conversion, nested multiparts; #include, jinja, part
//     handlers, other interpreters and unmodelled cloud-config are
//     unresolved.
//   - bash: statements in order, static variables and arrays, quoting and
//     word splitting, set -e, exit, constant conditions, wrappers (sudo,
//     env, exec, cloud-init-per); eval, source, sh -c, unread scripts and
//     direct kubelet starts are unresolved.
//   - bootstrap.sh: its exact option list, "--option=value" as a
//     positional word, and the argument values that make it exit.
//   - systemd: the drop-in Environment= line and the splitting of
//     $KUBELET_EXTRA_ARGS; a quote, newline or lone '%' in it is unresolved ("%%" is '%').
//   - the kubelet: its real flag set per release (unknown flags exit), the
//     last --register-with-taints, its own cloud-provider taint, a
//     duplicate of which the API server refuses, label rules.
//   - nodeadm: MIME read with Go's net/mail and mime/multipart, as nodeadm
//     reads it (a header block must end at an empty line, every part's
//     headers must parse, the body must end at a closing delimiter),
//     top-level NodeConfig parts merged in order (flags appended,
//     config maps merged, an explicit empty list or null replaces), config
//     keys matched ignoring case, timeAdded refused.
//   - Bottlerocket: early-boot-config's reading of the TOML (a script or
//     cloud-config never joins), the settings model of the aws-k8s variants
//     (unknown keys, names and shapes refused; settings only some variants
//     or releases have are warnings), bootstrap commands as apiclient
//     parses them.
//   - EC2Launch: the <powershell> block and Start-EKSBootstrap.ps1's
//     parameters (how it hands -KubeletExtraArgs to kubelet.exe is not
//     published; Lint assumes what public copies do).
//
// The kubelet's flags, feature gates and eviction signals differ between
// its releases: Lint judges them for the release of the Kubernetes
// version given with [KubernetesVersion], and otherwise for every release
// the family's AMIs ship (AL2: 1.24 to 1.32; the others: 1.28 to 1.36),
// where a fact the releases disagree on makes the verdict [Unresolved].
//
// Lint returns an error only for an unknown family, invalid required
// taints, a Kubernetes version that is not a minor version, an AMI
// variant it does not know, or gzip data
// it cannot decompress; everything else is in the [Report].
func Lint(family compat.AMIFamily, userData []byte, required []Taint, opts ...LintOption) (Report, error) {
	r, _, err := lint(family, userData, required, false, opts...)
	return r, err
}

// lint is [Lint]; with traced set (AL2 only) it also returns how the
// userData reaches its join.
func lint(family compat.AMIFamily, userData []byte, required []Taint, traced bool, opts ...LintOption) (Report, *al2Trace, error) {
	if !family.Valid() {
		return Report{}, nil, fmt.Errorf("userdata: cannot lint for %v; use AL2, AL2023, Bottlerocket, Windows2019, Windows2022, Windows2025 or Custom", family)
	}
	if err := validateTaintList("required taints", required); err != nil {
		return Report{}, nil, err
	}
	minor, image := 0, amiOption{}
	for _, o := range opts {
		switch o := o.(type) {
		case kubernetesVersion:
			if o == "" {
				continue
			}
			m, err := kubelet.ParseMinor(string(o))
			if err != nil {
				return Report{}, nil, fmt.Errorf("userdata: %v", err)
			}
			minor = m
		case amiOption:
			if err := o.check(); err != nil {
				return Report{}, nil, err
			}
			image = o
		}
	}
	text, rawSize, err := decodeUserData(userData)
	if err != nil {
		return Report{}, nil, err
	}
	l := &linter{required: required}
	if traced {
		l.trace = &al2Trace{joins: map[int]joinTrace{}, joined: -1}
	}
	if rawSize > MaxSize {
		l.add(CodeTooLarge, 0, "shorten the custom part of the userData",
			"the userData is %d bytes; EC2 accepts at most %d bytes before base64", rawSize, MaxSize)
	}
	if family == compat.Custom && len(bytes.TrimSpace(text)) == 0 {
		// Nothing runs: whether the node joins is the AMI's own doing.
		b := l.unresolved(0, "nothing to fix if the AMI joins the cluster by itself; otherwise give the EC2NodeClass the userData that joins it",
			"the Custom family's userData is empty: the AMI must join the cluster by itself, and what it registers is not in the userData")
		return l.finish(b), nil, nil
	}
	if family == compat.Custom {
		family = detectFamily(text)
	}
	l.forRelease(family, minor)
	l.ami = image
	var b boot
	switch family {
	case compat.AL2:
		b = l.lintAL2(text)
	case compat.AL2023:
		b = l.lintAL2023(text)
	case compat.Bottlerocket:
		b = l.lintBottlerocket(text)
	case compat.Windows2019, compat.Windows2022, compat.Windows2025:
		b = l.lintWindows(text)
	}
	return l.finish(l.kubeletRefuses(b)), l.al2Trace(), nil
}

// A LintOption tells [Lint] something about the node beyond its userData.
// The options are [KubernetesVersion] and [AMI].
type LintOption interface{ lintOption() }

type kubernetesVersion string

func (kubernetesVersion) lintOption() {}

// KubernetesVersion says which Kubernetes minor version the node runs,
// written as amiselect takes it ("1.32"), which decides the kubelet
// release Lint judges flags, feature gates and eviction signals for. ""
// says nothing. A version the library's tables do not cover (they cover
// 1.24 to 1.36) is judged as an unknown one.
func KubernetesVersion(v string) LintOption { return kubernetesVersion(v) }

// decodeUserData undoes base64 and gzip. rawSize is the size EC2 counts:
// after base64, before gzip.
func decodeUserData(in []byte) (text []byte, rawSize int, err error) {
	raw := in
	if decoded, ok := decodeBase64Text(in); ok {
		raw = decoded
	}
	text = raw
	if len(raw) >= 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, 0, fmt.Errorf("userdata: userData looks gzip-compressed but is not: %v", err)
		}
		text, err = io.ReadAll(io.LimitReader(zr, maxDecompressed+1))
		if err != nil {
			return nil, 0, fmt.Errorf("userdata: cannot decompress gzip userData: %v", err)
		}
		if len(text) > maxDecompressed {
			return nil, 0, fmt.Errorf("userdata: gzip userData expands beyond %d bytes; it cannot be real userData", maxDecompressed)
		}
	}
	return text, len(raw), nil
}

// detectFamily guesses the boot agent of Custom userData from its shape.
// The Windows families share one boot script, so Windows2022 stands for
// all three.
func detectFamily(text []byte) compat.AMIFamily {
	trimmed := bytes.TrimLeft(text, " \t\r\n")
	switch {
	case bytes.Contains(bytes.ToLower(text), []byte("<powershell>")):
		return compat.Windows2022
	case mimedoc.LooksMIME(text):
		if bytes.Contains(bytes.ToLower(text), []byte("application/node.eks.aws")) {
			return compat.AL2023
		}
		return compat.AL2
	case bytes.HasPrefix(trimmed, []byte("#!")) || bytes.HasPrefix(trimmed, []byte("#cloud")):
		return compat.AL2
	}
	if nodeadm.IsNodeConfig(text) {
		return compat.AL2023
	}
	if bottlerocket.IsSettings(text) {
		return compat.Bottlerocket
	}
	return compat.AL2
}

func (amiOption) lintOption() {}

// AMI says which image the node boots: its variant as amiselect's
// Variant.String names it ("standard", "nvidia", "neuron"; "" or
// "unspecified" when unknown) and its release as amiselect's AMI.Release
// spells it ("v1.46.0" for Bottlerocket; "" when unknown). Lint then
// decides the problems that arise only on some AMIs of the family
// ([Problem].AMIs): one whose scope leaves the AMI out is not reported,
// and one that arises on it is certain, with the verdict it implies (a
// Bottlerocket setting the AMI's variant or release does not have:
// [NeverJoins], [CodeRefusedSetting]). A scope the AMI does not settle (a
// release Lint cannot compare, an unknown variant) stays a scoped
// warning, as without the option.
func AMI(variant, release string) LintOption { return amiOption{variant, release} }
